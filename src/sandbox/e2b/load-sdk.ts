/**
 * Loading the E2B SDK: `@e2b/code-interpreter` is an optional dependency (its protobuf/connect
 * dependencies take ~200 ms to load and most runs use the local sandbox), imported only when an e2b
 * sandbox is created. Absent → SandboxError `E_E2B_SDK_MISSING` naming the package and the install command.
 */
import { SandboxError } from "../errors.js";
import { isMissingPackage, missingPackageMessage } from "../../util/optional-dependency.js";

/** The npm package of the E2B SDK. */
export const E2B_SDK_PACKAGE = "@e2b/code-interpreter";

/** What we use of the SDK module. */
export interface E2bSdk {
  Sandbox: typeof import("@e2b/code-interpreter").Sandbox;
}

/** Imports the SDK module (injected in tests to stand for an install without it). */
export type E2bSdkImporter = () => Promise<E2bSdk>;

const importSdk: E2bSdkImporter = () => import("@e2b/code-interpreter");

/** The SDK module; rejects with SandboxError `E_E2B_SDK_MISSING` when the package is not installed. */
export async function loadE2bSdk(importer: E2bSdkImporter = importSdk): Promise<E2bSdk> {
  try {
    return await importer();
  } catch (err) {
    if (!isMissingPackage(err, E2B_SDK_PACKAGE)) throw err;
    throw new SandboxError("E_E2B_SDK_MISSING", missingPackageMessage(E2B_SDK_PACKAGE, "the e2b sandbox"), {
      cause: err,
    });
  }
}
