/**
 * Non-adversarial wrong (or accidentally right) completions for the
 * equivalence test: small mutants of a canonical solution, the kind of
 * mistakes a model makes. Deterministic: the same dataset gives the same list.
 */
import type { HumanEvalProblem } from "../../../src/benchmarks/humaneval/problem.js";

export interface Mutant {
  problem: HumanEvalProblem;
  kind: string;
  completion: string;
}

const INT_LITERAL = /(?<![\w.'"])\d+(?![\w.'"])/g;
const COMPARISON = /(?<![<>=!-])(<=|>=|==|!=|<|>)(?![<>=])/g;
const FLIP: Record<string, string> = { "<=": "<", ">=": ">", "<": "<=", ">": ">=", "==": "!=", "!=": "==" };

/** Replace the n-th match of `re` in `text` by `f(match)`; null when there is no n-th match. */
function replaceNth(text: string, re: RegExp, n: number, f: (m: string) => string): string | null {
  const matches = [...text.matchAll(re)];
  const m = matches[n];
  if (!m || m.index === undefined) return null;
  return text.slice(0, m.index) + f(m[0]) + text.slice(m.index + m[0].length);
}

/** Up to six mutants per problem: return None, raise at entry, two off-by-ones, two flipped comparisons. */
export function mutantsOf(problem: HumanEvalProblem): Mutant[] {
  const body = problem.canonical_solution;
  const out: Mutant[] = [
    { problem, kind: "return-none", completion: "    return None\n" },
    { problem, kind: "raise-at-entry", completion: "    raise ValueError('mutant')\n" + body },
  ];
  for (const n of [0, 1]) {
    const plusOne = replaceNth(body, INT_LITERAL, n, (m) => String(Number(m) + 1));
    if (plusOne !== null) out.push({ problem, kind: `int+1#${n}`, completion: plusOne });
    const flipped = replaceNth(body, COMPARISON, n, (m) => FLIP[m] ?? m);
    if (flipped !== null) out.push({ problem, kind: `flip#${n}`, completion: flipped });
  }
  return out;
}
