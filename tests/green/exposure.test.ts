import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { exposureVerdict, isLoopbackHost } from "../../src/green/exposure.js";
import { flag, settingsFromEnv, DEFAULT_MAX_QUEUED, DEFAULT_RUNNER_TIMEOUT_MS } from "../../src/green/settings.js";
import { parseGreenArgs } from "../../src/cli/green.js";
import { cliEntry } from "../../src/util/package-root.js";

describe("exposure of the green agent", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.5", false],
    ["green.example", false],
  ])("%s loopback=%s", (host, loop) => expect(isLoopbackHost(host)).toBe(loop));

  test("loopback or a token: fine; beyond loopback without a token: refused unless allowed, then a warning", () => {
    expect(exposureVerdict("127.0.0.1", false, false).kind).toBe("ok");
    expect(exposureVerdict("0.0.0.0", true, false).kind).toBe("ok");
    const refused = exposureVerdict("0.0.0.0", false, false);
    expect(refused).toMatchObject({
      kind: "refuse",
      message: expect.stringMatching(/GREEN_AUTH_TOKEN.*GREEN_ALLOW_UNAUTHENTICATED=1/),
    });
    expect(exposureVerdict("0.0.0.0", false, true)).toMatchObject({
      kind: "warn",
      message: expect.stringMatching(/^WARNING: .*0\.0\.0\.0/),
    });
  });

  test("`green --host 0.0.0.0` without a token exits 1 with the refusal and never listens", async () => {
    const env = { ...process.env, GREEN_AUTH_TOKEN: "", GREEN_ALLOW_UNAUTHENTICATED: "" };
    const child = spawn(process.execPath, [cliEntry, "green", "--host", "0.0.0.0", "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
    child.stdout.on("data", (d: Buffer) => (stdout += String(d)));
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(/refusing to start.*0\.0\.0\.0.*GREEN_AUTH_TOKEN.*\[E_EXPOSED\]/);
    expect(stdout).not.toMatch(/listening/);
  });
});

describe("green settings", () => {
  test("defaults: a queue bound and an assessment time limit", () => {
    const s = settingsFromEnv({}, "/tmp");
    expect(s).toMatchObject({
      maxQueued: DEFAULT_MAX_QUEUED,
      runnerTimeoutMs: DEFAULT_RUNNER_TIMEOUT_MS,
      allowWeakIsolation: false,
      allowUnauthenticated: false,
    });
  });

  test("overrides; 0 = no time limit; bad values named", () => {
    const s = settingsFromEnv(
      {
        GREEN_MAX_QUEUED_TASKS: "0",
        GREEN_RUNNER_TIMEOUT_SECONDS: "0",
        GREEN_ALLOW_WEAK_ISOLATION: "1",
        GREEN_ALLOW_UNAUTHENTICATED: "true",
      },
      "/tmp",
    );
    expect(s).toMatchObject({
      maxQueued: 0,
      runnerTimeoutMs: undefined,
      allowWeakIsolation: true,
      allowUnauthenticated: true,
    });
    expect(settingsFromEnv({ GREEN_RUNNER_TIMEOUT_SECONDS: "90" }, "/tmp").runnerTimeoutMs).toBe(90_000);
    expect(() => settingsFromEnv({ GREEN_MAX_QUEUED_TASKS: "-1" }, "/tmp")).toThrow(/GREEN_MAX_QUEUED_TASKS/);
    expect(() => flag({ X: "maybe" }, "X")).toThrow(/X must be 1\/true\/yes or 0\/false\/no/);
  });

  test("CLI flags", () => {
    expect(parseGreenArgs(["--allow-weak-isolation", "--allow-unauthenticated"])).toMatchObject({
      allowWeakIsolation: true,
      allowUnauthenticated: true,
    });
    expect(parseGreenArgs([])).toMatchObject({ allowWeakIsolation: false, allowUnauthenticated: false });
  });
});
