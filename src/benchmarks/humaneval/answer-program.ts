/**
 * The program the sandbox runs for one HumanEval completion (the ANSWER step
 * of the batch replay; see checker.ts): a header, `prompt + completion`, and a
 * tail that calls the entry point on each recorded call and writes the answers.
 *
 * Header: reads the calls from stdin before any candidate code runs, keeps a
 * duplicate of fd 1 as the answer channel and points fd 1 at fd 2, so whatever
 * the candidate prints lands on stderr and cannot cut into the answer framing.
 * Tail: one line per call on the answer channel, written (and so flushed) as
 * soon as the call returns: `{"i":k,"ok":<plain data>}` or
 * `{"i":k,"exc":[type name, message]}` (a return value that is not plain data
 * answers as the exception `UnsupportedReturnType`). A crash or a timeout at
 * call k thus still leaves answers 0..k-1. Without a callable entry point the
 * only line is `{"interface": why}`. The tail ends with os._exit(0): no atexit
 * hook or lingering thread runs after the last answer.
 *
 * Nothing here is trusted: the candidate can rewrite the tail, forge lines or
 * skip them. That amounts to choosing its own answers, which is its right; it
 * never sees the test, the expected values or the checker. What the checker
 * accepts is decided there (strict parsing, plain data only).
 */
import type { HumanEvalProblem } from "./problem.js";

/**
 * The answer side of the plain-data codec (plain-data.ts), compact: every answer job compiles it, and
 * compiling the full codec (docstrings, the strict validating decoder) cost ~1.4 ms a job, most of this
 * program's overhead over the old single program. `enc` is the full codec's encoder, line for line (same
 * encodings, same bounds, same error messages: tests/benchmarks/humaneval/answer-codec.test.ts compares
 * them); `dec` only reads what our checker encoded, so it does not validate (the candidate may replace it
 * anyway, which is no more than choosing its answers).
 */
export const ANSWER_CODEC_PY = String.raw`
import json
class PlainDataError(Exception): pass
def _enc(x, depth, count):
    if depth > 64: raise PlainDataError("nested deeper than 64")
    count[0] += 1
    if count[0] > 1000000: raise PlainDataError("more than 1000000 values")
    t = type(x)
    if x is None or t is bool or t is str: return x
    if t is int:
        if x.bit_length() > 12000: raise PlainDataError("integer too large")
        return {"i": str(x)}
    if t is float: return {"f": float.hex(x)}
    if t is bytes: return {"b": x.hex()}
    if t is list: return {"l": [_enc(v, depth + 1, count) for v in x]}
    if t is tuple: return {"t": [_enc(v, depth + 1, count) for v in x]}
    if t is set or t is frozenset:
        items = [_enc(v, depth + 1, count) for v in x]
        items.sort(key=lambda e: json.dumps(e, separators=(",", ":")))
        return {"s" if t is set else "fs": items}
    if t is dict: return {"d": [[_enc(k, depth + 1, count), _enc(v, depth + 1, count)] for k, v in x.items()]}
    try: name = type(x).__qualname__
    except BaseException: name = "?"
    raise PlainDataError("unsupported type %s" % name)
def encode(x): return _enc(x, 0, [0])
def decode(v):
    if type(v) is not dict: return v
    (tag, b), = v.items()
    if tag == "i": return int(b)
    if tag == "f": return float.fromhex(b)
    if tag == "b": return bytes.fromhex(b)
    if tag == "l": return [decode(e) for e in b]
    if tag == "t": return tuple([decode(e) for e in b])
    if tag == "s": return set([decode(e) for e in b])
    if tag == "fs": return frozenset([decode(e) for e in b])
    return {decode(k): decode(e) for k, e in b}
`;

/** One line, so the candidate's line numbers in tracebacks move by one only. */
const HEADER =
  "import os as _he_os, sys as _he_sys; _he_calls = _he_sys.stdin.read(); " +
  "_he_answer_fd = _he_os.dup(1); _he_os.dup2(2, 1)\n";

function tail(entryPoint: string): string {
  return String.raw`

def _he_answer(_g, _entry, _calls_text, _fd):
    import json, os, sys
    codec = {}
    exec(${JSON.stringify(ANSWER_CODEC_PY)}, codec)
    def put(obj):
        data = (json.dumps(obj) + "\n").encode()
        while data:
            data = data[os.write(_fd, data):]
    def flush_std():
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except BaseException:
                pass
    fn = _g.get(_entry)
    if not callable(fn):
        put({"interface": "entry point %r is not defined" % _entry})
        flush_std()
        os._exit(0)
    for i, call in enumerate(json.loads(_calls_text)):
        try:
            result = fn(*codec["decode"](call["a"]), **codec["decode"](call["k"]))
        except BaseException as e:
            try:
                line = {"i": i, "exc": [type(e).__name__[:200], str(e)[:1000]]}
            except BaseException:
                line = {"i": i, "exc": ["Exception", "unprintable exception"]}
        else:
            try:
                line = {"i": i, "ok": codec["encode"](result)}
            except BaseException as e:
                line = {"i": i, "exc": ["UnsupportedReturnType", "unsupported return type: %s" % e]}
        put(line)
    flush_std()
    os._exit(0)


_he_answer(globals(), ${JSON.stringify(entryPoint)}, _he_calls, _he_answer_fd)
`;
}

/** Header + `prompt + completion` + answer tail; the calls go on the job's stdin (JSON array). */
export function buildAnswerProgram(problem: HumanEvalProblem, completion: string): string {
  return HEADER + problem.prompt + completion + tail(problem.entry_point);
}
