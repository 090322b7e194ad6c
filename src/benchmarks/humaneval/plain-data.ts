/**
 * The plain-data codec of HumanEval's batch replay, as Python source: the only
 * shape in which values cross between the trusted checker and the candidate's
 * sandboxed program (call arguments one way, return values the other).
 *
 * Plain data is None, bool, int, float, str, bytes and list, tuple, dict, set,
 * frozenset of them, tested with exact `type(x) is ...`: a subclass (say an int
 * whose `__eq__` is always True) is not plain, so it never reaches the check.
 * The encoding is tagged JSON that keeps what `==` in a check can tell apart:
 * bool vs int (JSON booleans vs `{"i": "<decimal>"}`), list vs tuple vs set,
 * floats exact (`float.hex`, so nan, ±inf and -0.0 survive), big ints as
 * decimal strings. Sets are encoded in a canonical order (sorted by their
 * elements' encodings) so equal call arguments always encode equally; dicts
 * keep their insertion order (observable through iteration). Depth, value
 * count and integer size are bounded. The decoder is strict (exactly one tag
 * per object, every field type checked) and only builds values: it never
 * evaluates anything. It also refuses a set or dict in which more than
 * MAX_SAME_HASH elements (keys) share one hash: Python's int and float hashes
 * are public (k·(2^61−1) all hash to 0), and a 1 MB answer of 30,000 such ints
 * makes building the set quadratic, tens of seconds in C that no alarm
 * interrupts, which would void the row as the checker's timeout instead of
 * failing the candidate. Honest data never comes near the bound.
 *
 * The same source runs in the checker (where it must hold against forged
 * input) and in the candidate's program (where it is a convenience: the
 * candidate may replace it, which is no more than choosing its answers).
 */
export const PLAIN_DATA_PY = String.raw`
import json, math

MAX_DEPTH = 64
MAX_NODES = 1_000_000
MAX_INT_DIGITS = 4000
MAX_FLOAT_CHARS = 40
MAX_SAME_HASH = 8


class PlainDataError(Exception):
    """The value is not plain data, or breaks a bound (depth, nodes, digits)."""


def _enc(x, depth, count):
    if depth > MAX_DEPTH:
        raise PlainDataError("nested deeper than %d" % MAX_DEPTH)
    count[0] += 1
    if count[0] > MAX_NODES:
        raise PlainDataError("more than %d values" % MAX_NODES)
    t = type(x)
    if x is None or t is bool or t is str:
        return x
    if t is int:
        if x.bit_length() > MAX_INT_DIGITS * 3:
            raise PlainDataError("integer too large")
        return {"i": str(x)}
    if t is float:
        return {"f": float.hex(x)}
    if t is bytes:
        return {"b": x.hex()}
    if t is list:
        return {"l": [_enc(v, depth + 1, count) for v in x]}
    if t is tuple:
        return {"t": [_enc(v, depth + 1, count) for v in x]}
    if t is set or t is frozenset:
        items = [_enc(v, depth + 1, count) for v in x]
        items.sort(key=lambda e: json.dumps(e, separators=(",", ":")))
        return {"s" if t is set else "fs": items}
    if t is dict:
        return {"d": [[_enc(k, depth + 1, count), _enc(v, depth + 1, count)] for k, v in x.items()]}
    raise PlainDataError("unsupported type %s" % _type_name(x))


def _type_name(x):
    try:
        return type(x).__qualname__
    except BaseException:
        return "?"


def encode(x):
    """Tagged JSON value of plain data x (exact types only); PlainDataError otherwise."""
    return _enc(x, 0, [0])


def _spread_hashes(keys):
    """keys, once no more than MAX_SAME_HASH of them share a hash (a crafted collision makes a set quadratic)."""
    seen = {}
    for k in keys:
        try:
            h = hash(k)
        except TypeError:
            raise PlainDataError("unhashable set element or dict key")
        n = seen[h] = seen.get(h, 0) + 1
        if n > MAX_SAME_HASH:
            raise PlainDataError("more than %d set elements or dict keys share one hash" % MAX_SAME_HASH)
    return keys


def _dec_list(v, depth, count):
    if type(v) is not list:
        raise PlainDataError("malformed container")
    return [_dec(e, depth + 1, count) for e in v]


def _dec(v, depth, count):
    if depth > MAX_DEPTH:
        raise PlainDataError("nested deeper than %d" % MAX_DEPTH)
    count[0] += 1
    if count[0] > MAX_NODES:
        raise PlainDataError("more than %d values" % MAX_NODES)
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is not dict or len(v) != 1:
        raise PlainDataError("malformed value")
    (tag, body), = v.items()
    if tag == "i":
        if type(body) is not str or not (0 < len(body) <= MAX_INT_DIGITS + 1):
            raise PlainDataError("malformed int")
        digits = body[1:] if body[0] == "-" else body
        if not (digits.isascii() and digits.isdigit()):
            raise PlainDataError("malformed int")
        return int(body)
    if tag == "f":
        if type(body) is not str or len(body) > MAX_FLOAT_CHARS:
            raise PlainDataError("malformed float")
        try:
            return float.fromhex(body)
        except (ValueError, OverflowError):
            raise PlainDataError("malformed float")
    if tag == "b":
        if type(body) is not str:
            raise PlainDataError("malformed bytes")
        try:
            return bytes.fromhex(body)
        except ValueError:
            raise PlainDataError("malformed bytes")
    if tag == "l":
        return _dec_list(body, depth, count)
    if tag == "t":
        return tuple(_dec_list(body, depth, count))
    if tag in ("s", "fs"):
        items = _spread_hashes(_dec_list(body, depth, count))
        return set(items) if tag == "s" else frozenset(items)
    if tag == "d":
        if type(body) is not list:
            raise PlainDataError("malformed dict")
        pairs = []
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise PlainDataError("malformed dict")
            pairs.append((_dec(pair[0], depth + 1, count), _dec(pair[1], depth + 1, count)))
        _spread_hashes([k for k, _ in pairs])
        return dict(pairs)
    raise PlainDataError("unknown tag")


def decode(v):
    """Plain data from its tagged JSON value; PlainDataError on anything else. Never evaluates code."""
    return _dec(v, 0, [0])
`;
