/**
 * The program the sandbox runs for one HumanEval completion (the ANSWER step
 * of the batch replay; see checker.ts): a header, `prompt + completion`, and a
 * tail that calls the entry point on each recorded call and writes the answers.
 *
 * Header: reads the calls (JSON array) from {@link CALLS_FILE} in the job's
 * working directory before any candidate code runs (a file, not stdin: the
 * local sandbox passes no more than 64 KiB on stdin, and a check with large
 * arguments left an honest program without its calls), keeps a duplicate of
 * fd 1 as the answer channel and points fd 1 at fd 2, so whatever the
 * candidate prints lands on stderr and cannot cut into the answer framing.
 * Tail: one line per call on the answer channel, written (and so flushed) as
 * soon as the call returns: `{"i":k,"ok":<plain data>}` or
 * `{"i":k,"exc":[type name, message]}` (a return value that is not plain data
 * answers as the exception `UnsupportedReturnType`). A crash or a timeout at
 * call k thus still leaves answers 0..k-1. Without a callable entry point the
 * only line is `{"interface": why}`. The tail ends with os._exit(0): no atexit
 * hook or lingering thread runs after the last answer. The tail's codec
 * (answer-codec.ts) is the checker's compiled code object when the job's
 * interpreter has the checker's bytecode magic (the local backend), else its
 * source, compiled in the job: per-job cost, measured in a forked child,
 * ~1.3 ms for compiling it against ~0.05 ms for loading it.
 *
 * Nothing here is trusted: the candidate can rewrite the tail, forge lines or
 * skip them. That amounts to choosing its own answers, which is its right; it
 * never sees the test, the expected values or the checker. What the checker
 * accepts is decided there (strict parsing, plain data only).
 */
import { ANSWER_CODEC_PY, type CompiledAnswerCodec } from "./answer-codec.js";
import type { CheckCall } from "./checker.js";
import type { HumanEvalProblem } from "./problem.js";

export { ANSWER_CODEC_PY };

/** The job file (in its working directory) that carries the calls. */
export const CALLS_FILE = "he-calls.json";

/** One line, so the candidate's line numbers in tracebacks move by one only. */
const HEADER =
  `import os as _he_os; _he_calls = open(${JSON.stringify(CALLS_FILE)}, encoding="utf-8").read(); ` +
  "_he_answer_fd = _he_os.dup(1); _he_os.dup2(2, 1)\n";

/** {@link loadCodec}'s text per compiled codec: the same for every program of a run (made once, not per item). */
const codecLoaders = new WeakMap<CompiledAnswerCodec, string>();
let sourceLoader: string | undefined;

/** Loads the codec: its code object when this interpreter's bytecode magic is the checker's, else its source. */
function loadCodec(compiled: CompiledAnswerCodec | null): string {
  if (!compiled) return (sourceLoader ??= makeCodecLoader(null));
  let text = codecLoaders.get(compiled);
  if (text === undefined) codecLoaders.set(compiled, (text = makeCodecLoader(compiled)));
  return text;
}

function makeCodecLoader(compiled: CompiledAnswerCodec | null): string {
  const source = `exec(${JSON.stringify(ANSWER_CODEC_PY)}, codec)`;
  if (!compiled) return `    ${source}`;
  return [
    `    _ext = sys.modules.get("_frozen_importlib_external")`,
    `    if getattr(_ext, "MAGIC_NUMBER", None) == bytes.fromhex(${JSON.stringify(compiled.magic)}):`,
    `        import marshal`,
    `        exec(marshal.loads(bytes.fromhex(${JSON.stringify(compiled.code)})), codec)`,
    `    else:`,
    `        ${source}`,
  ].join("\n");
}

/** The answer function; `codecLines` (indented) leave the codec's namespace in `codec`. */
function answerFunction(codecLines: string): string {
  return String.raw`def _he_answer(_g, _entry, _calls_text, _fd):
    import json, os, sys
${codecLines}
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
    for i, call in enumerate(json.loads(_calls_text, object_hook=codec["hook"])):
        try:
            result = fn(*call["a"], **call["k"])
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
`;
}

/** The python module a sandbox may load once for every job ({@link ANSWER_MODULE_PY}): its name. */
export const ANSWER_MODULE = "_a2a_he_answer";

/**
 * The answer codec and function as one module, compiled once where the jobs are forked (the local fork server
 * loads it before its first job), so a job carries only its own text and a two-line tail.
 */
export const ANSWER_MODULE_PY =
  `_HE_CODEC = {}\nexec(${JSON.stringify(ANSWER_CODEC_PY)}, _HE_CODEC)\n\n\n` + answerFunction("    codec = _HE_CODEC");

function tail(entryPoint: string, compiled: CompiledAnswerCodec | null, preloaded: boolean): string {
  const call = `_he_answer(globals(), ${JSON.stringify(entryPoint)}, _he_calls, _he_answer_fd)\n`;
  if (preloaded) return `\n\nfrom ${ANSWER_MODULE} import _he_answer\n${call}`;
  return `\n\n${answerFunction(`    codec = {}\n${loadCodec(compiled)}`)}\n\n${call}`;
}

/**
 * Header + `prompt + completion` + answer tail; the calls go in {@link CALLS_FILE} ({@link answerFiles}). With
 * `preloaded` (the sandbox has {@link ANSWER_MODULE} loaded where it forks jobs) the tail imports the answer
 * function from there. Otherwise the tail carries it: with `compiled` (the checker's code object of the codec) a
 * job on the checker's interpreter loads the codec without compiling it (~1.3 ms a job in a freshly forked
 * child); any other interpreter compiles its source.
 */
export function buildAnswerProgram(
  problem: HumanEvalProblem,
  completion: string,
  compiled: CompiledAnswerCodec | null = null,
  preloaded = false,
): string {
  return HEADER + problem.prompt + completion + tail(problem.entry_point, compiled, preloaded);
}

/** The job's files: the calls, as the header reads them. */
export function answerFiles(calls: readonly CheckCall[]): Record<string, string> {
  return { [CALLS_FILE]: JSON.stringify(calls) };
}
