/**
 * Every built-in backend available here runs the conformance suite on itself: local (bubblewrap), docker
 * (the test engine; skipped without one unless A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1), and e2b against its
 * local stand-in (the real SDK; E2B's cloud is not reachable from here).
 */
import { afterAll } from "vitest";
import { randomBytes } from "node:crypto";
import { localBackend } from "../../src/sandbox/local/descriptor.js";
import { dockerBackend } from "../../src/sandbox/docker/descriptor.js";
import { e2bBackend } from "../../src/sandbox/e2b/descriptor.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { startE2bStandIn, type StandInServer } from "../../src/sandbox/e2b/stand-in-server.js";
import { OWNER_LABEL } from "../../src/sandbox/docker/owner.js";
import { silentLogger } from "../../src/util/logger.js";
import { BASE_IMAGE, containersLabelled, testEngine } from "../support/container-engine.js";
import { describeConformance } from "../support/conformance.js";

describeConformance(localBackend);

const engine = await testEngine();
const owner = `conformance-${randomBytes(4).toString("hex")}`;
describeConformance(dockerBackend, {
  ...(engine.env === null ? { skip: engine.skipReason } : {}),
  options: {
    sandboxOptions: { owner, backendOptions: { image: BASE_IMAGE } },
    image: BASE_IMAGE,
    // The image's root is writable; /tmp is a fresh tmpfs mounted over what the spec copied in.
    filesDir: "/a2a-conformance",
    owner,
    resources: () => containersLabelled(engine.env!, OWNER_LABEL, owner),
  },
});

let executor: Sandbox | undefined;
let standIn: StandInServer | undefined;
afterAll(async () => {
  await standIn?.close();
  await executor?.close();
});
describeConformance(e2bBackend, {
  options: async () => {
    // The stand-in serves environments on a bwrap executor only (what keeps two of them apart).
    executor = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      backendOptions: { forceIsolation: "bwrap" },
    });
    standIn = await startE2bStandIn({ executor, apiKey: "test-key" });
    const live = standIn.live;
    return {
      sandboxOptions: { backendOptions: { apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url } },
      image: "conformance-template",
      filesDir: "/home/user/conformance",
      resources: () => Promise.resolve([...live]),
    };
  },
  // E2B's code-interpreter sandbox runs jobs with the template's resources and network: it claims neither.
  notApplicable: ["limits.memory", "limits.processes", "network.none"],
});
