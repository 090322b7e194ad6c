/**
 * The answer program's compact codec against the full plain-data codec the
 * checker uses: identical encodings (and identical error messages) for the
 * same values, and its decoder rebuilds exactly what the full one does from
 * the checker's encodings, so compacting it cannot move a verdict; and the
 * code object the checker compiles for it is what a job on the same
 * interpreter runs (another interpreter compiles the source).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CompiledAnswerCodec } from "../../../src/benchmarks/humaneval/answer-codec.js";
import { ANSWER_CODEC_PY, answerFiles, buildAnswerProgram } from "../../../src/benchmarks/humaneval/answer-program.js";
import { HumanEvalChecker } from "../../../src/benchmarks/humaneval/checker.js";
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

describe("compiled answer codec", () => {
  it("is sent by the checker; a program on an interpreter with its magic runs that code object, any other compiles the source", async () => {
    const checker = new HumanEvalChecker();
    // The job's working directory, holding its calls file as the sandbox stages it.
    const jobDir = mkdtempSync(join(tmpdir(), "he-answer-"));
    try {
      const compiled = await checker.answerCodec();
      expect(compiled?.magic).toMatch(/^[0-9a-f]{8}$/);
      const python = await checker.interpreter();
      const problem = { task_id: "T/0", prompt: "def f(x):\n", canonical_solution: "", test: "", entry_point: "f" };
      const answer = (c: CompiledAnswerCodec | null): unknown => {
        const program = buildAnswerProgram(problem, "    return {x: (x, [1.5])}\n", c);
        for (const [name, text] of Object.entries(answerFiles([{ a: { t: [{ i: "3" }] }, k: { d: [] } }])))
          writeFileSync(join(jobDir, name), text);
        const r = spawnSync(python, ["-I", "-S", "-c", program], { cwd: jobDir, encoding: "utf8" });
        expect(r.stderr).toBe("");
        return JSON.parse(r.stdout);
      };
      const expected = { i: 0, ok: { d: [[{ i: "3" }, { t: [{ i: "3" }, { l: [{ f: "0x1.8000000000000p+0" }] }] }]] } };
      expect(answer(compiled)).toEqual(expected);
      expect(answer(null)).toEqual(expected);
      // A doctored code object (ints encode as 42) shows which one runs.
      const doctor = `import marshal,sys; print(marshal.dumps(compile(sys.argv[1].replace('return {"i": str(x)}', 'return {"i": "42"}'), "<codec>", "exec")).hex())`;
      const code = spawnSync(python, ["-I", "-S", "-c", doctor, ANSWER_CODEC_PY], { encoding: "utf8" }).stdout.trim();
      const doctored = answer({ magic: compiled!.magic, code }) as { ok: { d: unknown[][] } };
      expect(doctored.ok.d[0]![0]).toEqual({ i: "42" });
      expect(answer({ magic: "00000000", code })).toEqual(expected);
    } finally {
      await checker.close();
      rmSync(jobDir, { recursive: true, force: true });
    }
  });
});
