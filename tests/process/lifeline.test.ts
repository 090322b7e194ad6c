/**
 * A supervised child's own lifeline (fd 3, named in env): the child sees it close when we close it (or die),
 * whatever its stdin is; a child without one is told so and watches nothing. Uses dist/ (the fixture is a
 * plain node program).
 */
import { describe, expect, test } from "vitest";
import { startChild, LIFELINE_FD, watchLifeline } from "../../src/process/index.js";
import { firstLine, fixture } from "./helpers.js";

const node = process.execPath;
const env = { PATH: process.env["PATH"] ?? "" };

describe("lifeline", () => {
  test("fd 3, named in the child's env; its stdin (here /dev/null, EOF at once) does not end it; closing our end does", async () => {
    const h = startChild({ file: node, args: [fixture("lifeline-watch.mjs")], env, lifeline: true, stdout: "pipe" });
    // The child read the name and removed it from its env (its own children get no lifeline of ours).
    expect(await firstLine(h)).toBe(`ready ${LIFELINE_FD} unset`);
    expect(h.running).toBe(true);
    h.child!.stdio[LIFELINE_FD]!.destroy();
    expect(await h.exited).toEqual({ exitCode: 0, signal: null });
  });

  test("without one: the child watches nothing", async () => {
    const h = startChild({ file: node, args: [fixture("lifeline-watch.mjs")], env, stdout: "pipe" });
    expect(await firstLine(h)).toBe("ready none unset");
    expect(await h.exited).toEqual({ exitCode: 0, signal: null });
  });

  test("a bad fd name is refused", () => {
    expect(() => watchLifeline({ A2A_BENCH_LIFELINE_FD: "0" }, () => undefined)).toThrow(/file descriptor >= 3/);
    expect(() => watchLifeline({ A2A_BENCH_LIFELINE_FD: "x" }, () => undefined)).toThrow(/file descriptor >= 3/);
    expect(watchLifeline({}, () => undefined)).toBeNull();
  });
});
