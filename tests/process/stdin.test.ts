import { describe, expect, test } from "vitest";
import { runChild, startChild } from "../../src/process/index.js";
import { firstLine, fixture } from "./helpers.js";

const node = process.execPath;
const env = { PATH: process.env["PATH"] ?? "" };

describe("stdin modes", () => {
  test("an input (string or Buffer) is written whole and closed: the child sees EOF", async () => {
    for (const input of ["x".repeat(200_000), Buffer.alloc(200_000, 1)]) {
      const o = await runChild({
        file: node,
        args: [fixture("until-eof.mjs")],
        env,
        stdin: { input },
        stdout: { all: true },
      });
      expect(o.stdout).toBe("ready\neof after 200000 bytes\n");
    }
  });

  test("a lifeline is never written; closing our end is the child's EOF", async () => {
    const h = startChild({ file: node, args: [fixture("until-eof.mjs")], env, stdin: "lifeline", stdout: "pipe" });
    expect(await firstLine(h)).toBe("ready");
    expect(h.running).toBe(true);
    h.stdin!.end();
    expect(await h.exited).toEqual({ exitCode: 0, signal: null });
  });

  test("a pipe carries what the caller writes", async () => {
    const h = startChild({ file: node, args: [fixture("until-eof.mjs")], env, stdin: "pipe", stdout: { all: true } });
    h.stdin!.write("abc");
    h.stdin!.end("de");
    expect((await h.done).stdout).toBe("ready\neof after 5 bytes\n");
  });

  test("ignore opens nothing: the child reads EOF at once and we hold no pipe", async () => {
    const h = startChild({ file: node, args: [fixture("until-eof.mjs")], env, stdout: { all: true } });
    expect(h.stdin).toBeNull();
    expect((await h.done).stdout).toBe("ready\neof after 0 bytes\n");
  });

  test("a child that never reads a large input does not break us (EPIPE is its business)", async () => {
    const o = await runChild({
      file: node,
      args: ["-e", "process.exit(4)"],
      env,
      stdin: { input: "y".repeat(1 << 20) },
    });
    expect(o.exitCode).toBe(4);
    expect(o.spawnError).toBeNull();
  });
});
