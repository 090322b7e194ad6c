/**
 * The answer program's codec (see ANSWER_CODEC_PY) and its compiled form.
 */

/** The codec compiled by the checker's interpreter: marshal of its code object, and that interpreter's bytecode magic (hex). */
export interface CompiledAnswerCodec {
  magic: string;
  code: string;
}

/**
 * The answer side of the plain-data codec (plain-data.ts), compact: every answer job loads it, and
 * compiling the full codec (docstrings, the strict validating decoder) cost ~1.4 ms a job, most of the answer
 * program's overhead over the old single program. The checker compiles it once and sends the code object
 * (marshal) with its bytecode magic; answer-program.ts embeds both, and a job whose interpreter has the same
 * magic loads it without compiling. `enc` is the full codec's encoder, line for line (same
 * encodings, same bounds, same error messages: tests/benchmarks/humaneval/answer-codec.test.ts compares
 * them). Decoding is json's own parser with `hook` turning each tagged object into its value bottom-up (a
 * JSON object is only ever a tag or a call `{a, k}` in our encoding): no recursive python decoder per call. It
 * only reads what our checker encoded, so it does not validate (the candidate may replace it anyway, which is no
 * more than choosing its answers).
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
_TAGS = {"i": int, "f": float.fromhex, "b": bytes.fromhex, "l": list, "t": tuple, "s": set, "fs": frozenset,
         "d": lambda b: {k: v for k, v in b}}
def hook(o):
    if len(o) != 1: return o
    (tag, b), = o.items()
    return _TAGS[tag](b)
def decode(v): return json.loads(json.dumps(v), object_hook=hook)
`;
