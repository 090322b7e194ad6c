/**
 * "Did you mean" for a mistyped command or flag: the closest known name by
 * Levenshtein distance, offered only when it is close enough to be a typo
 * (a third of the word's length rounded up, at most 3 edits).
 */
import { distance } from "fastest-levenshtein";

/** The closest of `known` to `input`, or undefined when none is plausibly meant. */
export function closestName(input: string, known: readonly string[]): string | undefined {
  const budget = Math.min(3, Math.max(1, Math.ceil(input.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(input.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return bestDistance <= budget ? best : undefined;
}

/** ` (did you mean "x"?)` or "" — ready to append to a message. */
export function didYouMean(
  input: string,
  known: readonly string[],
  show: (name: string) => string = (n) => `"${n}"`,
): string {
  const hit = closestName(input, known);
  return hit === undefined ? "" : ` (did you mean ${show(hit)}?)`;
}
