/**
 * The files `a2a-bench new benchmark NAME` writes: a working benchmark of three embedded python problems,
 * scored like HumanEval with the shared scoring helpers, its rows' `$defs` and a test. Each file passes
 * the gate of src/ as written (tests/scaffold/ checks it).
 */
import type { ScaffoldNames } from "./names.js";

function descriptor(n: ScaffoldNames): string {
  return `/** ${n.name}: complete a python function from its docstring; passed when its tests pass. */
import { defineBenchmark } from "../descriptor.js";

export const ${n.ident} = defineBenchmark({
  name: "${n.name}",
  summary: "complete a python function from its docstring; passed when its tests pass",
  interactions: ["single_shot"],
  // Every item asks the participant (no predictions file, no replay).
  needsParticipant: () => true,
  rowSchema: "${n.row}",
  resultsSchema: async () => (await import("./row-schema.js")).${n.camel}RowSchema,
  // Plain programs: every backend can run them.
  sandboxNeeds: [],
  // Nothing on this host beyond what the sandbox backend itself needs.
  hostNeeds: () => [],
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).create${n.pascal}Benchmark() },
});
`;
}

/** Three embedded problems, in the shape HumanEval's are. */
function sample(n: ScaffoldNames): string {
  return `const SAMPLE: ${n.pascal}Item[] = [
  {
    id: "${n.name}/0",
    prompt: 'def add(a: int, b: int) -> int:\\n    """Return a + b."""\\n',
    entryPoint: "add",
    test: "def check(f):\\n    assert f(2, 3) == 5\\n    assert f(-1, 1) == 0\\n",
  },
  {
    id: "${n.name}/1",
    prompt: 'def reverse(s: str) -> str:\\n    """Return s reversed."""\\n',
    entryPoint: "reverse",
    test: "def check(f):\\n    assert f('abc') == 'cba'\\n    assert f('') == ''\\n",
  },
  {
    id: "${n.name}/2",
    prompt: 'def evens(xs: list[int]) -> list[int]:\\n    """Return the even numbers of xs, in order."""\\n',
    entryPoint: "evens",
    test: "def check(f):\\n    assert f([1, 2, 3, 4]) == [2, 4]\\n    assert f([]) == []\\n",
  },
];

`;
}

function definition(n: ScaffoldNames): string {
  return `/** ${n.name}'s runner plug-in: embedded problems; the participant's function runs with the problem's tests. */
import type { BenchmarkDefinition, EvaluateContext, ItemResult } from "../../runner/benchmark.js";
import { UsageError } from "../../util/errors.js";
import { extractCode, memoByKey, passAtKOverTasks } from "../scoring/index.js";

export interface ${n.pascal}Item {
  id: string;
  /** The function's signature and docstring, shown to the participant. */
  prompt: string;
  entryPoint: string;
  /** Python that defines \`check(candidate)\`, asserting on the function. */
  test: string;
}

${sample(n)}/** The items of a dataset: only the embedded \`sample\` so far. */
const loadDataset = memoByKey((dataset: string): Promise<${n.pascal}Item[]> => {
  if (dataset !== "sample")
    return Promise.reject(new UsageError(\`${n.name} reads only --dataset sample, got "\${dataset}"\`));
  return Promise.resolve(SAMPLE);
});

async function evaluate(item: ${n.pascal}Item, ctx: EvaluateContext): Promise<ItemResult> {
  const started = performance.now();
  const done = (row: Pick<ItemResult, "status" | "passed"> & Record<string, unknown>): ItemResult => ({
    ...row,
    id: item.id,
    elapsed_seconds: (performance.now() - started) / 1000,
  });
  let reply: string;
  try {
    const question = { text: item.prompt, data: { benchmark: "${n.name}", id: item.id } };
    reply = (await ctx.participant!.ask(question, ctx.signal)).text;
  } catch (err) {
    const error = (err as Error).message;
    return done({
      status: "error",
      passed: false,
      completion_kind: "none",
      error,
      failure_mode: "model_participant_error",
    });
  }
  const code = extractCode(reply, { entryPoint: item.entryPoint, prompt: item.prompt });
  const program = \`\${item.prompt}\${code.completion}\\n\\n\${item.test}\\ncheck(\${item.entryPoint})\\n\`;
  const timeoutMs = ctx.options.per_task_timeout_seconds * 1000;
  const run = await ctx.sandbox.exec({ language: "python", code: program, timeoutMs }, ctx.signal);
  if (run.infraError !== undefined)
    return done({
      status: "error",
      passed: false,
      completion_kind: code.kind,
      error: run.infraError,
      failure_mode: "infrastructure_sandbox",
    });
  if (run.exitCode === 0 && !run.timedOut) return done({ status: "passed", passed: true, completion_kind: code.kind });
  return done({ status: "failed", passed: false, completion_kind: code.kind, failure_mode: "model_wrong_answer" });
}

export function create${n.pascal}Benchmark(): BenchmarkDefinition<${n.pascal}Item> {
  return {
    name: "${n.name}",
    loadItems: (options) => loadDataset(options.dataset),
    needsParticipant: () => true,
    evaluate,
    aggregate(rows) {
      const { values } = passAtKOverTasks(
        rows.map((r) => ({ n: 1, c: r.passed ? 1 : 0 })),
        [1],
      );
      return { pass_at_1: rows.length === 0 ? null : (values["pass@1"] ?? null) };
    },
  };
}
`;
}

function rowSchema(n: ScaffoldNames): string {
  return `/** ${n.name}'s part of schemas/results.schema.json: its rows' \`$defs\` (the build writes them there). */
import type { ResultsSchemaFragment } from "../descriptor.js";

export const ${n.camel}RowSchema: ResultsSchemaFragment = {
  $defs: {
    ${n.row}: {
      description: "A ${n.name} item: the common row plus how the participant's code was read.",
      type: "object",
      allOf: [{ $ref: "#/$defs/row" }],
      required: ["completion_kind"],
      properties: {
        completion_kind: {
          description: "What the reply held: a whole function, its body only, or no code.",
          enum: ["full", "body", "none"],
        },
      },
    },
  },
};
`;
}

function test(n: ScaffoldNames): string {
  return `import { describe, expect, it } from "vitest";
import { ${n.ident} } from "../../../src/benchmarks/${n.name}/descriptor.js";
import { getBenchmark } from "../../../src/benchmarks/index.js";
import type { EvaluateContext } from "../../../src/runner/benchmark.js";
import type { ExecOutcome, ExecRequest, Sandbox } from "../../../src/sandbox/types.js";

const outcome = (exitCode: number): ExecOutcome => ({
  exitCode,
  signal: null,
  timedOut: false,
  isCanceled: false,
  outputLimitExceeded: false,
  durationMs: 1,
  stdoutTail: "",
  stderrTail: "",
});

/** A context whose participant sends \`reply\` and whose sandbox records each program and exits with \`exitCode\`. */
function context(reply: string, exitCode: number, programs: string[]): EvaluateContext {
  const sandbox = {
    exec: (req: ExecRequest) => {
      programs.push(req.code);
      return Promise.resolve(outcome(exitCode));
    },
  } as unknown as Sandbox;
  const participant = { ask: () => Promise.resolve({ text: reply, data: [], state: "completed" }) };
  return { sandbox, participant, options: {}, signal: new AbortController().signal } as unknown as EvaluateContext;
}

describe("${n.name}", () => {
  it("is registered, and its plug-in loads the embedded items", async () => {
    const definition = await getBenchmark("${n.name}");
    expect(definition.name).toBe(${n.ident}.name);
    const items = await definition.loadItems({ dataset: "sample" } as never, undefined as never);
    expect(items.length).toBeGreaterThan(0);
  });

  it("runs the participant's function with the item's tests; the exit status decides", async () => {
    const definition = await getBenchmark("${n.name}");
    const [item] = await definition.loadItems({ dataset: "sample" } as never, undefined as never);
    const programs: string[] = [];
    const reply = "\`\`\`python\\ndef add(a, b):\\n    return a + b\\n\`\`\`";
    const passed = await definition.evaluate(item!, context(reply, 0, programs));
    expect(passed).toMatchObject({ status: "passed", passed: true, completion_kind: "full" });
    expect(programs[0]).toContain("return a + b");
    expect(programs[0]).toContain("check(add)");
    const failed = await definition.evaluate(item!, context(reply, 1, programs));
    expect(failed).toMatchObject({ status: "failed", passed: false, failure_mode: "model_wrong_answer" });
    expect(definition.aggregate([passed, failed], {} as never)).toEqual({ pass_at_1: 0.5 });
  });
});
`;
}

/** The benchmark's files, by path relative to the package root. */
export function benchmarkFiles(n: ScaffoldNames): Record<string, string> {
  const dir = `src/benchmarks/${n.name}`;
  return {
    [`${dir}/descriptor.ts`]: descriptor(n),
    [`${dir}/definition.ts`]: definition(n),
    [`${dir}/row-schema.ts`]: rowSchema(n),
    [`tests/benchmarks/${n.name}/definition.test.ts`]: test(n),
  };
}
