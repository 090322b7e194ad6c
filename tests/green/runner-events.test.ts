/** The green agent reads the runner's A2A_EVENT protocol: its runner command asks for it. */
import { describe, expect, it } from "vitest";
import { builtinRunnerCommand } from "../../src/green/runner-command.js";
import { parseRunArgs } from "../../src/runner/run-args.js";
import { chooseDisplayMode } from "../../src/runner/progress.js";
import type { ResolvedConfig } from "../../src/request-config/config.js";

describe("the green agent's built-in runner command", () => {
  it("asks for the A2A_EVENT protocol on stdout (a piped runner otherwise prints lines for people)", () => {
    // A variable, not a literal: the context's fields may change without this test naming them all.
    const ctx = { runId: "r1", workDir: "/runs/r1", configPath: "/runs/r1/config.json", requireFullIsolation: true };
    const cmd = builtinRunnerCommand("/pkg/dist/cli.js", "/usr/bin/node")(
      { benchmark: "humaneval" } as ResolvedConfig,
      ctx,
    );
    expect(cmd.command).toBe("/usr/bin/node");
    expect(cmd.args[0]).toBe("/pkg/dist/cli.js");
    const args = parseRunArgs(cmd.args.slice(2));
    expect(args).toMatchObject({ benchmark: "humaneval", events: true, json: false, requireFullIsolation: true });
    // The supervisor's stdout is a pipe: the runner must still choose the protocol.
    expect(chooseDisplayMode({ isTTY: false }, {}, args.json === true, args.events === true)).toBe("events");
  });
});
