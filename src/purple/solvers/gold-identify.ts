/**
 * The gold purple's way to know a task that names only its instruction (RDI's
 * Terminal-Bench green sends nothing else; AgentSWE's green sends the issue
 * text): find the instance whose own text — a SWE-bench problem statement, a
 * HumanEval prompt — the instruction holds, among the datasets the purple
 * knows (its `--dataset` files and the embedded sample sets). Whitespace is
 * normalised (runs of it compare as one space). The most specific match wins
 * (the longest text); two different instances matching with texts equally
 * long, or none, is no identification: the caller says so, never guesses.
 */
import { knownSwebenchInstances } from "../../benchmarks/swebench/gold-lookup.js";
import { knownHumanEvalProblems } from "../../benchmarks/humaneval/gold.js";
import type { GoldContext } from "../../benchmarks/gold.js";

/** Texts shorter than this (normalised) never identify an instance: too likely to occur by chance. */
export const MIN_IDENTIFYING_CHARS = 20;

/** An identified instance: its benchmark and id as a task message would name them. */
export interface IdentifiedInstance {
  benchmark: "swebench" | "humaneval";
  instance_id: string;
}

/** `text` with every run of whitespace as one space, trimmed. */
export function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

interface Candidate extends IdentifiedInstance {
  key: string;
}

async function candidates(ctx: GoldContext): Promise<Candidate[]> {
  const [instances, problems] = await Promise.all([knownSwebenchInstances(ctx.datasets), knownHumanEvalProblems(ctx)]);
  return [
    ...instances.map((i) => ({
      benchmark: "swebench" as const,
      instance_id: i.instance_id,
      key: normaliseWhitespace(i.problem_statement),
    })),
    ...problems.map((p) => ({
      benchmark: "humaneval" as const,
      instance_id: p.task_id,
      key: normaliseWhitespace(p.prompt),
    })),
  ];
}

/** The instance `instruction` is about, or a sentence saying why none could be told. */
export async function identifyByInstruction(
  instruction: string,
  ctx: GoldContext,
): Promise<{ found: IdentifiedInstance } | { problem: string }> {
  const text = normaliseWhitespace(instruction);
  const all = await candidates(ctx);
  const matches = all.filter((c) => c.key.length >= MIN_IDENTIFYING_CHARS && text.includes(c.key));
  const longest = Math.max(0, ...matches.map((m) => m.key.length));
  const best = new Map(
    matches.filter((m) => m.key.length === longest).map((m) => [`${m.benchmark}:${m.instance_id}`, m]),
  );
  const searched = `${all.length} instances of ${[...new Set([...ctx.datasets, "the sample sets"])].join(", ")}`;
  if (best.size === 0)
    return { problem: `no known instance's problem statement or prompt is in the instruction (searched ${searched})` };
  if (best.size > 1)
    return { problem: `the instruction matches ${[...best.keys()].join(" and ")} equally well: no single instance` };
  const { benchmark, instance_id } = [...best.values()][0]!;
  return { found: { benchmark, instance_id } };
}
