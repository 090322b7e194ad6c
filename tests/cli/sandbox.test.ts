/** `a2a-bench sandbox check BACKEND`: its parser, and the suite run on the local backend through the command. */
import { describe, expect, test } from "vitest";
import { PassThrough } from "node:stream";
import { command, parseSandboxArgs } from "../../src/cli/sandbox.js";
import { CONFORMANCE_CHECKS } from "../../src/sandbox/conformance/index.js";

describe("a2a-bench sandbox", () => {
  test.each([
    [["check", "local"], { backend: "local", json: false }],
    [
      ["check", "docker", "--image", "img:1", "--files-dir", "/a2a-conformance", "--json"],
      { backend: "docker", image: "img:1", filesDir: "/a2a-conformance", json: true },
    ],
  ])("parses %j", (argv, want) => {
    expect(parseSandboxArgs(argv)).toEqual(want);
  });

  test.each([
    [[], 'the one verb is "check"'],
    [["run", "local"], 'the one verb is "check", got "run"'],
    [["check"], "name a backend"],
    [["check", "podman"], /^BACKEND must be one of (?=.*\blocal\b)(?=.*\bdocker\b).*, got "podman"/],
    [["check", "local", "extra"], "unexpected extra"],
    [["check", "local", "--files-dir", "rel"], '--files-dir must be absolute, got "rel"'],
  ])("refuses %j", (argv, message) => {
    expect(() => parseSandboxArgs(argv)).toThrow(message);
  });

  test("check local: every check printed, a summary line, exit 0 when none failed", async () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c: Buffer) => (text += c.toString()));
    const code = await command.run(["check", "local"], { stdout: out, stderr: new PassThrough(), env: process.env });
    for (const check of CONFORMANCE_CHECKS)
      expect(text).toMatch(new RegExp(`^[✓✗–] ${check.replace(".", "\\.")}`, "m"));
    expect(text).toContain(`local: ${CONFORMANCE_CHECKS.length} passed, 0 failed, 0 not applicable`);
    expect(code).toBe(0);
  }, 1_800_000);
});
