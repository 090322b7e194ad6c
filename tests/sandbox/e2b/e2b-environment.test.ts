import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.js";
import { startE2bStandIn, type StandInServer } from "../../../src/sandbox/e2b/stand-in-server.js";
import { environmentsOf, type Environment, type EnvironmentSpec } from "../../../src/sandbox/environment.js";
import { silentLogger } from "../../../src/util/logger.js";

describe("e2b environments (real SDK against the local stand-in)", () => {
  let executor: Sandbox;
  let standIn: StandInServer;
  let e2b: Sandbox;
  const spec = (o: Partial<EnvironmentSpec> = {}): EnvironmentSpec => ({ image: "swe-img", owner: "run-1", ...o });

  beforeAll(async () => {
    executor = await createSandbox({ backend: "local", logger: silentLogger() });
    standIn = await startE2bStandIn({ executor, apiKey: "test-key" });
    e2b = await createSandbox({
      backend: "e2b",
      logger: silentLogger(),
      e2b: { apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url },
    });
  });
  afterAll(async () => {
    await e2b?.close();
    await standIn?.close();
    await executor?.close();
  });

  test("smoke", async () => {
    const env: Environment = await environmentsOf(e2b, "test").openEnvironment(
      spec({ files: { dir: "/home/user/w", entries: { "a.txt": "hello" } } }),
    );
    const r = await env.exec(["bash", "-c", "echo hi; pwd; cat w/a.txt; ls -la ~; echo err >&2; exit 3"], { timeoutMs: 10_000 });
    console.log(r);
    await env.close();
  });
});
