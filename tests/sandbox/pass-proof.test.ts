/**
 * The pass proof against the real bwrap sandbox: a job earns `verified` only by
 * returning normally from its code; every way of ending early, forging the
 * channel or tampering with the harness leaves it unproven, with a reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { existsSync } from "node:fs";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import type { ExecOutcome } from "../../src/sandbox/types.js";
import { silentLogger } from "../../src/util/logger.js";

const hasBwrap = existsSync("/usr/bin/bwrap") || existsSync("/usr/local/bin/bwrap");
const proved = (code: string, timeoutMs = 5000) => ({ language: "python" as const, code, timeoutMs, proof: true });
const ASSERTS = "def check():\n    assert 1 == 2, 'wrong'\ncheck()\n";

describe.skipIf(!hasBwrap)("pass proof (local bwrap fork server)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 4 });
  });
  afterAll(async () => {
    await sb.close();
  });

  const run = (code: string): Promise<ExecOutcome> => sb.exec(proved(code));

  test("a program that returns normally is verified; without the option nothing is reported", async () => {
    const [ok, plain] = await Promise.all([
      run("x = 1\n"),
      sb.exec({ language: "python", code: "x = 1\n", timeoutMs: 5000 }),
    ]);
    expect(ok).toMatchObject({ exitCode: 0, proof: "verified" });
    expect(plain.exitCode).toBe(0);
    expect(plain.proof).toBeUndefined();
  });

  test.each([
    ["sys.exit(0)", "import sys\nsys.exit(0)\n" + ASSERTS],
    ["raise SystemExit", "raise SystemExit\n" + ASSERTS],
    ["os._exit(0)", "import os\nos._exit(0)\n" + ASSERTS],
    ["SIGKILL to itself", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n" + ASSERTS],
    ["closed stdout and exit", "import os, sys\nos.close(1)\nsys.exit(0)\n" + ASSERTS],
    ["an exception", ASSERTS],
  ])("%s: the proof is missing", async (_name, code) => {
    const o = await run(code);
    expect(o.proof).toBe("missing");
    expect(o.proofNote).toMatch(/did not return normally/);
  });

  test("printing a fake marker does not prove anything", async () => {
    const o = await run("print('A2A_PROOF:0123456789abcdef0123456789abcdef')\nimport sys\nsys.exit(0)\n");
    expect(o.exitCode).toBe(0);
    expect(o.proof).toBe("missing");
  });

  test("writing forged data to the proof channel is a mismatch", async () => {
    const o = await run("import os\nos.write(3, b'0123456789abcdef0123456789abcdef')\nos._exit(0)\n");
    expect(o.exitCode).toBe(0);
    expect(o.proof).toBe("mismatch");
  });

  test("a trace function that jumps over the failing assert is refused", async () => {
    const code = [
      "import sys",
      "def tracer(frame, event, arg):",
      "    if event == 'line' and frame.f_code.co_name == 'check' and frame.f_lineno == 5:",
      "        frame.f_lineno = 6",
      "    return tracer",
      "def check():",
      "    x = 1",
      "    assert x == 2",
      "    return x",
      "sys.settrace(tracer)",
      "check()",
      "sys.settrace(None)",
    ].join("\n");
    const o = await run(code);
    expect(o.proof).toBe("tampered");
    expect(o.proofNote).toMatch(/sys\.settrace/);
  });

  test("resuming the harness's token keeper from the program is refused", async () => {
    const code = [
      "import sys, os",
      "f = sys._getframe()",
      "while f is not None:",
      "    for v in list(f.f_locals.values()):",
      "        if type(v).__name__ == 'generator':",
      "            try: next(v)",
      "            except StopIteration: pass",
      "    f = f.f_back",
      "os._exit(0)",
    ].join("\n");
    const o = await run(code);
    expect(o.proof).toBe("tampered");
    expect(o.proofNote).toMatch(/keeper/);
  });

  test("walking the heap with gc or reading memory with ctypes is refused", async () => {
    const [gcWalk, ctypesRead, memFile] = await Promise.all([
      run("import gc\nfor o in gc.get_objects(): pass\n"),
      run("import ctypes\nctypes.string_at(id(1), 8)\n"),
      run("open('/proc/self/mem', 'rb')\n"),
    ]);
    expect(gcWalk).toMatchObject({ exitCode: 0, proof: "tampered" });
    expect(ctypesRead).toMatchObject({ exitCode: 0, proof: "tampered" });
    expect(memFile.proof).toBe("tampered");
  });

  test("replacing the channel before tampering ends the job instead of hiding the refusal", async () => {
    const o = await run("import os, gc\nkeep = os.dup(3)\nr, w = os.pipe()\nos.dup2(w, 3)\ngc.get_objects()\n");
    expect(o.exitCode).toBe(125);
    expect(o.proof).not.toBe("verified");
  });

  test("one-sandbox-per-exec runs prove the same for python and node; bash says unsupported", async () => {
    // A bind forces a sandbox of its own (no fork server).
    const alone = (language: "python" | "node" | "bash", code: string) =>
      sb.exec({
        language,
        code,
        timeoutMs: 5000,
        proof: true,
        binds: [{ host: "/usr/share", target: "/tmp/x-share", writable: false }],
      });
    const [pyOk, pyExit, pyTrace, nodeOk, nodeExit, nodeForged, bash] = await Promise.all([
      alone("python", "print('ok')\n"),
      alone("python", "import os\nos._exit(0)\n"),
      alone("python", "import sys\nsys.settrace(lambda *a: None)\nsys.settrace(None)\n"),
      alone("node", "setTimeout(() => console.log('ok'), 10);\n"),
      alone("node", "process.exit(0);\n"),
      alone("node", "require('fs').writeSync(3, 'f'.repeat(32)); process.exit(0);\n"),
      alone("bash", "echo ok\n"),
    ]);
    expect(pyOk).toMatchObject({ exitCode: 0, proof: "verified", stdoutTail: "ok\n" });
    expect(pyExit).toMatchObject({ exitCode: 0, proof: "missing" });
    expect(pyTrace).toMatchObject({ exitCode: 0, proof: "tampered" });
    expect(nodeOk).toMatchObject({ exitCode: 0, proof: "verified", stdoutTail: "ok\n" });
    expect(nodeExit).toMatchObject({ exitCode: 0, proof: "missing" });
    expect(nodeForged).toMatchObject({ exitCode: 0, proof: "mismatch" });
    expect(bash).toMatchObject({ exitCode: 0, proof: "unsupported" });
  });
});
