import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  COMMAND_BUDGET_BYTES,
  commandBytes,
  shellQuote,
  withHeredoc,
  writeFileCommands,
} from "../../../src/purple/interactive/shell-text.js";
import { MAX_COMMAND_BYTES } from "../../../src/interactive/limits.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "shell-text-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bash = (command: string) => execFileSync("bash", ["-c", command], { cwd: dir, encoding: "utf8" });

/** Content a naive heredoc, quoting or chunking would change. */
const tricky = [
  "it's $HOME `date` $(id) \\n",
  "A2A_BENCH_EOF",
  "EOF",
  "naïve ☃ 𝄞".repeat(300),
  "x".repeat(20_000), // one long line, no break at the end
].join("\n");

describe("shell text for files written through commands", () => {
  test("a single-quoted word survives any text", () => {
    expect(bash(`printf %s ${shellQuote("a'b\"c $x `y`")}`)).toBe("a'b\"c $x `y`");
  });

  test("a heredoc carries its body byte for byte; the delimiter is on no body line", () => {
    const cmd = withHeredoc("cat", "line $HOME\n'quoted'\n");
    expect(bash(cmd)).toBe("line $HOME\n'quoted'\n");
  });

  test("a small file ending with a line break: one readable heredoc", () => {
    const cmds = writeFileCommands("small.txt", "print('hi')\n");
    expect(cmds).toHaveLength(1);
    expect(cmds[0]).toMatch(/^cat > 'small.txt' <<'A2A_BENCH_EOF_[0-9a-f]{16}'\nprint\('hi'\)\n/);
  });

  test.each([
    ["under a small budget, in several commands", 6_000],
    ["under the default budget", COMMAND_BUDGET_BYTES],
  ])("content of any shape is written exactly, %s, each command within it", async (_what, budget) => {
    const cmds = writeFileCommands("out dir file.txt", tricky, budget);
    if (budget === 6_000) expect(cmds.length).toBeGreaterThan(5);
    for (const c of cmds) {
      expect(commandBytes(c)).toBeLessThanOrEqual(budget);
      bash(c);
    }
    expect(await readFile(join(dir, "out dir file.txt"), "utf8")).toBe(tricky);
  });

  test("the default budget leaves room under the green's command limit; empty content empties the file", async () => {
    expect(COMMAND_BUDGET_BYTES).toBeLessThan(MAX_COMMAND_BYTES);
    for (const c of writeFileCommands("empty.txt", "")) bash(c);
    expect(await readFile(join(dir, "empty.txt"), "utf8")).toBe("");
  });
});
