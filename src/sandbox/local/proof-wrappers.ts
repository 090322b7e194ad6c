/**
 * The pass proof for one-sandbox-per-exec runs (another language, binds, a
 * work dir...). The program file is started by a wrapper that reads the
 * job's token from fd 4 (a pipe only this process gets; it is closed before
 * the program runs) and writes it to fd 3, the private proof channel, only
 * when the program ran to its end:
 * - python: PROOF_HARNESS_PY around `runpy.run_path(main.py, "__main__")`
 *   (the same harness as the fork server; its guarantees and its residual);
 * - node: on `beforeExit`, which node emits only when the event loop drained
 *   by itself: not after process.exit(), an uncaught exception or a signal.
 *   The listener refuses a call whose stack shows a frame outside node's own
 *   internals (the program emitting the event or calling the listener).
 *   Weaker than python: a program in the same V8 isolate that knows this
 *   wrapper can reach the listener's closure through the inspector module;
 *   node proves "did not exit or crash early", not "could not forge".
 * bash has no wrapper: its outcome says `unsupported`.
 */
import { PROOF_HARNESS_PY } from "../proof-harness.js";

/** fd the wrapper writes the proof to (the node side reads it). */
export const PROOF_FD = 3;
/** fd the wrapper reads the token from (the node side writes it, then closes it). */
export const TOKEN_FD = 4;

/** python3 -c this, then the program path. */
export const PYTHON_PROOF_WRAPPER = String.raw`
import os as _os, sys as _sys, runpy as _runpy
${PROOF_HARNESS_PY}
def _a2a_token():
    chunks = []
    while True:
        b = _os.read(${TOKEN_FD}, 4096)
        if not b: break
        chunks.append(b)
    _os.close(${TOKEN_FD})
    return b"".join(chunks).decode("latin-1")
_a2a_path = _sys.argv[1]
_sys.argv = [_a2a_path]
_sys.path[0] = _os.path.dirname(_a2a_path)
_a2a_prove(${PROOF_FD}, _a2a_token(), lambda: _runpy.run_path(_a2a_path, run_name="__main__"))
`;

/** node -e this, then the program path. */
export const NODE_PROOF_WRAPPER = String.raw`
"use strict";
(() => {
  const fs = require("fs");
  const file = process.argv[1];
  const token = fs.readFileSync(${TOKEN_FD}, "latin1");
  fs.closeSync(${TOKEN_FD});
  let spent = false;
  const prepare = Error.prepareStackTrace;
  const refuse = (why) => { try { fs.writeSync(${PROOF_FD}, "X:" + why + "\n"); } catch {} };
  const onBeforeExit = function () {
    if (spent) return;
    spent = true;
    // A genuine beforeExit comes from node's own loop: every frame below this one is node's.
    let stack;
    try {
      Error.stackTraceLimit = 50;
      if (Error.prepareStackTrace !== prepare || Error.stackTraceLimit !== 50) return refuse("stack tracing tampered with");
      stack = String(new Error().stack);
    } catch {
      return refuse("stack tracing tampered with");
    }
    const frames = stack.split("\n").slice(2);
    if (frames.length === 0 || frames.some((f) => f.includes(file) || !/\((?:node:[a-z_/]+):\d+:\d+\)|\(native\)/.test(f))) {
      return refuse("beforeExit raised by the program");
    }
    try { fs.writeSync(${PROOF_FD}, token); } catch {}
  };
  process.once("beforeExit", onBeforeExit);
  process.argv = [process.argv[0], file];
  require("module").runMain();
})();
`;
