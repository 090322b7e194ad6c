/**
 * The trusted HumanEval checker, as Python source run by the host's python3
 * (checker.ts starts it). It never runs candidate code: it only execs the
 * operator's dataset (prompt, test, canonical solution) and reads candidates'
 * answers as plain data (plain-data.ts).
 *
 * One long-lived server handles requests one after another, each in fresh
 * globals (prompt, test and canonical solution exec'd anew into new dicts,
 * `random` reseeded), bounded by the request's timeout (SIGALRM raises in
 * whatever it runs; checker.ts kills the whole server if even that does not
 * come back), answered with one JSON line. Compiled code is cached per
 * source. Why not a fork per request: measured here, a fork, its pipe and
 * its reaping cost about 1.6 ms per request, more than the median record or
 * judge itself (under 1 ms), and 328 of them per HumanEval run doubled the
 * checker's CPU; a python3 start per request would cost 20-30 ms. What fresh
 * globals do not reset is module state the dataset's own code could change
 * (a monkeypatched `math`): trusted code, and HumanEval's does not.
 *
 * Protocol in (stdin, one JSON line per request):
 *   {"id":N,"op":"record","timeoutMs":n,"problem":{prompt,test,entry_point,canonical_solution}}
 *   {"id":N,"op":"judge","timeoutMs":n,"problem":{...},"calls":[call...],"answers":"<candidate stdout>"}
 * Protocol out (stdout, one JSON line per request, any order):
 *   {"ready":true,"codec":{"magic":hex,"code":hex}|null} once (the answer codec compiled here, marshal, with
 *   this interpreter's bytecode magic: answer jobs on the same interpreter load it without compiling); then {"id":N,"result":{...}} or {"id":N,"error":"<why>"} (our failure).
 * A call is {"a": <encoded args tuple>, "k": <encoded kwargs dict>}.
 *
 * record → {"calls":[...]}: check(proxy) with random seeded, the proxy calling
 *   the canonical solution on decoded copies of the arguments (so neither side
 *   sees the other's mutations, as in the candidate's replay) and returning its
 *   answer through the codec (so the check sees exactly what it will see from a
 *   candidate). Random state is saved and restored around each oracle call, so
 *   an oracle that draws random numbers does not move the check's stream. With
 *   an empty canonical solution the proxy answers with a permissive placeholder
 *   (equal to everything) just to discover the calls; the verdict never rests
 *   on it (judge replays the candidate's own answers).
 * judge → {"verdict": "pass" | "wrong_answer" | "exception" | "check_error" |
 *   "missing" | "interface" | "malformed" | "diverged", ...}: check(proxy) again
 *   with the same seed; call i must carry recorded call i's arguments and gets
 *   the candidate's answer i (an exception answer is raised as CandidateError,
 *   a missing one stops the check). A call whose arguments differ (or one past
 *   the recorded list) means the check's later arguments depend on answers:
 *   the rest is recorded with the oracle and returned as "diverged" with the
 *   extended call list for another answer round.
 */
import { ANSWER_CODEC_PY } from "./answer-codec.js";
import { PLAIN_DATA_PY } from "./plain-data.js";

/** Seed of `random` right before every check() (record and judge alike). */
export const CHECK_SEED = 20210707;

export const CHECKER_PY = String.raw`
import builtins, json, os, random, signal, sys
${PLAIN_DATA_PY}

SEED = ${CHECK_SEED}
MAX_EXC_CHARS = 1000


class CandidateError(Exception):
    """An exception the candidate's function raised (type name and message only)."""
    def __init__(self, type_name, message):
        super().__init__("%s: %s" % (type_name, message))
        self.type_name = type_name


class MissingAnswer(BaseException):
    """No answer for this call: the candidate's program ended (or was stopped) before it."""


class CheckerFault(Exception):
    """Our side (the dataset or this program) cannot go on: reported as an error, never a score."""


class Unknown:
    """Placeholder answer while discovering calls without an oracle: equal to everything."""
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return False
    def __gt__(self, other): return False
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __bool__(self): return True
    def __hash__(self): return 0
    def __abs__(self): return self
    def __neg__(self): return self
    def __add__(self, other): return self
    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __add__
    def __iter__(self): return iter(())
    def __len__(self): return 0


def candidate_error(type_name, message):
    """CandidateError that is also the builtin exception class of that name, if any, so try/except in checks behaves."""
    base = getattr(builtins, type_name, None) if type_name.isidentifier() else None
    if isinstance(base, type) and issubclass(base, Exception) and base is not AssertionError:
        try:
            cls = type(type_name, (CandidateError, base), {"__init__": CandidateError.__init__})
            return cls(type_name, message)
        except TypeError:
            pass
    return CandidateError(type_name, message)


def call_key(call):
    return json.dumps(call, sort_keys=True, separators=(",", ":"))


def encode_call(args, kwargs):
    try:
        return {"a": encode(tuple(args)), "k": encode(dict(kwargs))}
    except PlainDataError as e:
        raise CheckerFault("check() passes an argument that is not plain data: %s" % e)


_CODE = {}


def compiled(source, name):
    """Code object of source, compiled once (record and judge of a task, and its n samples, share it)."""
    key = (name, source)
    code = _CODE.get(key)
    if code is None:
        if len(_CODE) >= 2048:
            _CODE.clear()
        code = _CODE[key] = compile(source, name, "exec")
    return code


def load_check(p, proxy):
    """check() from prompt + test; the entry point's global name is the proxy too, as in the single program,
    where a test (HumanEval/33) or a prompt helper naming the function by name reaches the candidate's."""
    ns = {}
    exec(compiled(p["prompt"], "<prompt>"), ns)
    exec(compiled(p["test"], "<test>"), ns)
    check = ns.get("check")
    if not callable(check):
        raise CheckerFault("the test defines no check()")
    ns[p["entry_point"]] = proxy
    return check


def load_oracle(p):
    """The canonical solution as a function on plain data; None when the dataset has none."""
    if not p.get("canonical_solution", "").strip():
        return None
    ns = {}
    exec(compiled(p["prompt"] + p["canonical_solution"], "<canonical>"), ns)
    fn = ns.get(p["entry_point"])
    if not callable(fn):
        raise CheckerFault("the canonical solution does not define %s" % p["entry_point"])
    def oracle(call):
        state = random.getstate()
        try:
            result = fn(*decode(call["a"]), **decode(call["k"]))
        finally:
            random.setstate(state)
        try:
            return decode(encode(result))
        except PlainDataError as e:
            raise CheckerFault("the canonical solution returns data that is not plain: %s" % e)
    return oracle


def op_record(p):
    oracle = load_oracle(p)
    calls = []
    def proxy(*a, **k):
        call = encode_call(a, k)
        calls.append(call)
        return Unknown() if oracle is None else oracle(call)
    check = load_check(p, proxy)
    random.seed(SEED)
    try:
        check(proxy)
    except (CheckerFault, RequestTimeout):
        raise
    except BaseException as e:
        if oracle is not None:
            raise CheckerFault("the canonical solution fails its own check: %s: %s" % (type(e).__name__, str(e)[:300]))
    return {"calls": calls}


def malformed(why):
    return ("malformed", why)


def parse_answers(text, n):
    """Answers by call index from the candidate's answer channel, or ("interface"|"malformed", why)."""
    lines = text.split("\n")[:-1]  # what follows the last newline is a line cut short: not an answer
    answers = {}
    for pos, line in enumerate(lines):
        try:
            m = json.loads(line)
        except (ValueError, RecursionError):
            return malformed("answer line %d is not JSON" % pos)
        if type(m) is not dict:
            return malformed("answer line %d is not an object" % pos)
        if pos == 0 and len(lines) == 1 and set(m) == {"interface"} and type(m["interface"]) is str:
            return ("interface", m["interface"][:MAX_EXC_CHARS])
        keys = set(m)
        if keys not in ({"i", "ok"}, {"i", "exc"}) or type(m["i"]) is not int or m["i"] != pos:
            return malformed("answer line %d is not {i:%d, ok|exc}" % (pos, pos))
        if pos >= n:
            return malformed("more answers than calls")
        if "exc" in m:
            e = m["exc"]
            if type(e) is not list or len(e) != 2 or type(e[0]) is not str or type(e[1]) is not str:
                return malformed("answer %d: exc is not [type, message]" % pos)
            answers[pos] = ("exc", e[0][:200], e[1][:MAX_EXC_CHARS])
        else:
            try:
                decode(m["ok"])
            except (PlainDataError, RecursionError) as err:
                return malformed("answer %d: %s" % (pos, err))
            answers[pos] = ("ok", m["ok"])
    return ("ok", answers)


def op_judge(p, calls, text):
    parsed = parse_answers(text, len(calls))
    if parsed[0] == "interface":
        return {"verdict": "interface", "message": parsed[1]}
    if parsed[0] == "malformed":
        return {"verdict": "malformed", "message": parsed[1], "answered": 0}
    answers = parsed[1]
    keys = [call_key(c) for c in calls]
    st = {"i": 0, "diverged": None, "missing": None, "new": [], "oracle": None}
    def oracle_answer(call):
        if st["oracle"] is None:
            st["oracle"] = load_oracle(p) or (lambda call: Unknown())
        return st["oracle"](call)
    def proxy(*a, **k):
        i = st["i"]
        st["i"] += 1
        call = encode_call(a, k)
        if st["diverged"] is None and (i >= len(calls) or call_key(call) != keys[i]):
            st["diverged"] = i
        if st["diverged"] is not None:
            st["new"].append(call)
            return oracle_answer(call)
        ans = answers.get(i)
        if ans is None:
            st["missing"] = i
            raise MissingAnswer()
        if ans[0] == "exc":
            raise candidate_error(ans[1], ans[2])
        return decode(ans[1])
    check = load_check(p, proxy)
    random.seed(SEED)
    outcome = {"verdict": "pass"}
    try:
        check(proxy)
    except (CheckerFault, RequestTimeout):
        raise
    except MissingAnswer:
        pass
    except CandidateError as e:
        outcome = {"verdict": "exception", "exception": e.type_name, "message": str(e)[:MAX_EXC_CHARS], "call": st["i"] - 1}
    except AssertionError as e:
        outcome = {"verdict": "wrong_answer", "message": str(e)[:MAX_EXC_CHARS], "call": st["i"] - 1}
    except BaseException as e:
        outcome = {"verdict": "check_error", "exception": type(e).__name__, "message": str(e)[:MAX_EXC_CHARS], "call": st["i"] - 1}
    if st["diverged"] is not None:
        return {"verdict": "diverged", "at": st["diverged"], "calls": calls[:st["diverged"]] + st["new"]}
    if st["missing"] is not None:
        return {"verdict": "missing", "call": st["missing"], "answered": len(answers)}
    return outcome


def handle(req):
    p = req["problem"]
    if req["op"] == "record":
        return op_record(p)
    if req["op"] == "judge":
        return op_judge(p, req["calls"], req["answers"])
    raise CheckerFault("unknown op %r" % req["op"])


ANSWER_CODEC_SRC = ${JSON.stringify(ANSWER_CODEC_PY)}


def compiled_codec():
    try:
        import marshal
        magic = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
        return {"magic": magic.hex(), "code": marshal.dumps(compile(ANSWER_CODEC_SRC, "<codec>", "exec")).hex()}
    except BaseException:
        return None


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


class RequestTimeout(BaseException):
    """This request ran past its bound (raised by SIGALRM in whatever the request was running)."""


def on_alarm(signum, frame):
    raise RequestTimeout()


def serve():
    # The protocol keeps a private duplicate of stdout; fd 0, fd 1 and sys.stdout point at /dev/null, so
    # nothing the dataset's code prints or reads can touch the protocol.
    proto = os.dup(1)
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.stdout = open(os.devnull, "w")
    sys.setrecursionlimit(10000)
    signal.signal(signal.SIGALRM, on_alarm)
    write_all(proto, json.dumps({"ready": True, "codec": compiled_codec()}).encode() + b"\n")
    for line in requests:
        req = json.loads(line)
        signal.setitimer(signal.ITIMER_REAL, req["timeoutMs"] / 1000)
        try:
            out = {"id": req["id"], "result": handle(req)}
        except RequestTimeout:
            out = {"id": req["id"], "error": "checker request timed out after %d ms" % req["timeoutMs"], "timedOut": True}
        except BaseException as e:
            out = {"id": req["id"], "error": ("%s: %s" % (type(e).__name__, e))[:2000]}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            data = json.dumps(out).encode() + b"\n"
        except BaseException as e:
            data = json.dumps({"id": req["id"], "error": "unencodable result: %s" % e}).encode() + b"\n"
        write_all(proto, data)


serve()
`;
