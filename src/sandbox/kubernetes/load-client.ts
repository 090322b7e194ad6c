/**
 * Loading the Kubernetes client: `@kubernetes/client-node` is an optional dependency (its fetch,
 * WebSocket, OpenID and tar dependencies load only when a kubernetes sandbox is created). Absent →
 * SandboxError `E_K8S_CLIENT_MISSING` naming the package and the install command.
 */
import { SandboxError } from "../errors.js";
import { isMissingPackage, missingPackageMessage } from "../../util/optional-dependency.js";

/** The npm package of the official Kubernetes client. */
export const K8S_CLIENT_PACKAGE = "@kubernetes/client-node";

/** What we use of the client module. */
export type K8sClient = Pick<
  typeof import("@kubernetes/client-node"),
  "KubeConfig" | "CoreV1Api" | "NetworkingV1Api" | "Exec"
>;

/** Imports the client module (injected in tests to stand for an install without it). */
export type K8sClientImporter = () => Promise<K8sClient>;

const importClient: K8sClientImporter = () => import("@kubernetes/client-node");

/** The client module; rejects with SandboxError `E_K8S_CLIENT_MISSING` when the package is not installed. */
export async function loadK8sClient(importer: K8sClientImporter = importClient): Promise<K8sClient> {
  try {
    return await importer();
  } catch (err) {
    if (!isMissingPackage(err, K8S_CLIENT_PACKAGE)) throw err;
    throw new SandboxError(
      "E_K8S_CLIENT_MISSING",
      missingPackageMessage(K8S_CLIENT_PACKAGE, "the kubernetes sandbox"),
      {
        cause: err,
      },
    );
  }
}
