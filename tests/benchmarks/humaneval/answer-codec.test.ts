/**
 * The answer program's compact codec against the full plain-data codec the
 * checker uses: identical encodings (and identical error messages) for the
 * same values, and its decoder rebuilds exactly what the full one does from
 * the checker's encodings, so compacting it cannot move a verdict.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { ANSWER_CODEC_PY } from "../../../src/benchmarks/humaneval/answer-program.js";
import { PLAIN_DATA_PY } from "../../../src/benchmarks/humaneval/plain-data.js";

const SCRIPT = String.raw`
import json, sys
full, small = {}, {}
exec(sys.argv[1], full)
exec(sys.argv[2], small)
class Sub(int): pass
class Odd:
    pass
deep = []
for _ in range(70): deep = [deep]
values = [
    None, True, False, 0, 1, -1, 2**70, -(2**70), 10**3999, 10**4000 * 7, 0.0, -0.0, 1.5, float("inf"), float("-inf"),
    float("nan"), "", "abc", "\u00e9\u4e2d\n\"", b"", b"\x00\xff", [], [1, [2, [3]]], (), (1,), (1, "a", (2.5,)),
    set(), {3, 1, 2}, {"b", "a", (1, 2)}, frozenset({1, 2}), frozenset(), {}, {1: "a", "b": [2], (1, 2): None},
    {"z": 1, "a": 2}, [True, 1, 1.0], Sub(3), [Sub(3)], Odd(), {1: Odd()}, deep, [0] * 1000001, lambda: 0,
    {frozenset({1}): {2, 3}},
]
def run(codec, x):
    try:
        return ["ok", json.dumps(codec["encode"](x))]
    except BaseException as e:
        return ["err", type(e).__name__, str(e)]
out = []
for x in values:
    a, b = run(full, x), run(small, x)
    same_decode = None
    if a[0] == "ok":
        enc = json.loads(a[1])
        y, z = full["decode"](enc), small["decode"](enc)
        same_decode = repr(y) == repr(z) and type(y) is type(z)
    out.append({"value": repr(x)[:60], "same": a == b, "full": a[:2] if a[0] == "err" else a[0], "decode": same_decode})
print(json.dumps(out))
`;

describe("answer program codec", () => {
  it("encodes like the full codec and decodes the checker's encodings the same way", () => {
    const r = spawnSync("python3", ["-I", "-S", "-c", SCRIPT, PLAIN_DATA_PY, ANSWER_CODEC_PY], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ value: string; same: boolean; full: unknown; decode: boolean | null }>;
    expect(rows.filter((x) => !x.same)).toEqual([]);
    expect(rows.filter((x) => x.decode === false)).toEqual([]);
    // The corpus exercises both outcomes: values that encode and values the codec refuses.
    expect(rows.some((x) => x.full === "ok")).toBe(true);
    expect(rows.filter((x) => Array.isArray(x.full)).length).toBeGreaterThanOrEqual(5);
  });
});
