/**
 * Terminal-Bench purples answer a single-shot question with `{"kind": "final", "output": ...}`:
 * the reply's text is the output, before any code or diff is extracted. Unit cases, then the
 * whole responses of the purples (tests/fixtures/dialects) through the participant client.
 */
import { afterEach, describe, expect, test } from "vitest";
import { finalEnvelopeOutput, unwrapFinalEnvelope } from "../../../src/a2a/client/final-envelope.js";
import { createA2AParticipant } from "../../../src/a2a/client/participant-client.js";
import { silentLogger } from "../../../src/util/logger.js";
import { extractCode } from "../../../src/benchmarks/scoring/extract-code.js";
import { extractDiff } from "../../../src/benchmarks/swebench/extract-diff.js";
import { fixture, serveReplies, terminalBench } from "../../interactive/dialect-fixtures.js";
import { startFakeParticipant, type FakeParticipant } from "../fake-participant.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import { runBenchmark } from "../../../src/library/run-benchmark.js";
import { pythonDumps } from "../../interactive/dialect-fixtures.js";

describe("unwrapFinalEnvelope", () => {
  test("a final envelope is its output; without one, empty", () => {
    expect(unwrapFinalEnvelope('{"kind": "final", "output": "def f():\\n    return 1\\n"}')).toBe(
      "def f():\n    return 1\n",
    );
    expect(unwrapFinalEnvelope('  {"kind":"final"}\n')).toBe("");
    expect(finalEnvelopeOutput({ kind: "final", output: null })).toBe("");
  });

  test("anything else is left as it is", () => {
    for (const text of [
      "def f(): return 1",
      '{"kind": "exec_request", "command": "ls"}',
      '{"kind": "final", "output": {"code": 1}}',
      '{"kind": "final", "output": "x"} and more',
      '[{"kind": "final", "output": "x"}]',
      "{not json}",
    ])
      expect(unwrapFinalEnvelope(text)).toBe(text);
  });
});

describe("single-shot replies of Terminal-Bench purples, as on the wire", () => {
  let p: FakeParticipant | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  async function ask(body: ReturnType<typeof fixture>) {
    p = await serveReplies([body]);
    const participant = createA2AParticipant({ url: p.url, timeoutMs: 30_000, attempts: 1, logger: silentLogger() });
    return participant.ask({ text: "Complete the function." }, new AbortController().signal);
  }

  test("the function in the envelope is the answer's code, not the JSON object", async () => {
    const reply = await ask(fixture("terminal-bench-single-shot"));
    expect(reply.text).toBe('def add(x: int, y: int):\n    """Add two numbers x and y"""\n    return x + y\n');
    const code = extractCode(reply.text, { entryPoint: "add", prompt: "def add(x: int, y: int):\n" });
    expect(code.kind).not.toBe("none");
    expect(code.completion).toContain("return x + y");
    expect(code.completion).not.toContain('"kind"');
  });

  test("a diff in the envelope is the prediction", async () => {
    const diff = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n";
    const reply = await ask(terminalBench({ kind: "final", output: diff }));
    expect(extractDiff(reply.text, reply.data)).toBe(diff);
  });

  test("RDI's dummy answers with its sentence: no code in it", async () => {
    const reply = await ask(fixture("rdi-dummy-final"));
    expect(reply.text).toBe("Dummy purple does not execute commands.");
  });
});

describe("HumanEval single-shot against a Terminal-Bench purple, on the local sandbox", () => {
  /** A whole run against a purple answering each question with `{"kind": "final", "output": <function>}`. */
  async function run(body: (prompt: string, canonical: string) => string) {
    const tb = fixture("terminal-bench-single-shot");
    const participant = await startFakeParticipant({
      answer: (_n, question) => {
        const problem = SAMPLE_PROBLEMS.find((p) => question.includes(p.prompt.trim()))!;
        const reply = structuredClone(tb);
        const artifact = (reply.result["artifacts"] as { parts: { text: string }[] }[])[0]!;
        artifact.parts[0]!.text = pythonDumps({
          kind: "final",
          output: body(problem.prompt, problem.canonical_solution),
        });
        return { kind: "rpc_response", body: reply };
      },
    });
    const root = await mkdtemp(join(tmpdir(), "a2a-he-envelope-"));
    try {
      const runId = `he-env-${randomBytes(4).toString("hex")}`;
      const result = await runBenchmark(
        { benchmark: "humaneval", run_id: runId, dataset: "sample", sandbox: "local", agent: participant.url },
        { out: join(root, runId) },
      );
      return result.results;
    } finally {
      await participant.close();
      await rm(root, { recursive: true, force: true });
    }
  }

  test("the right functions pass, every one", async () => {
    const results = await run((prompt, canonical) => prompt + canonical);
    expect(results.status).toBe("ok");
    expect(results.rows.length).toBe(SAMPLE_PROBLEMS.length);
    expect(results.rows.filter((r) => r["passed"] !== true).map((r) => r.id)).toEqual([]);
  }, 300_000);

  test("wrong functions in the same envelope fail, every one", async () => {
    const results = await run((prompt) => `${prompt}    return None\n`);
    expect(results.rows.length).toBe(SAMPLE_PROBLEMS.length);
    expect(results.rows.filter((r) => r["passed"] === true).map((r) => r.id)).toEqual([]);
  }, 300_000);
});
