/**
 * The unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large
 * Language Models Trained on Code", section 2.1): with n samples of which c
 * are correct, pass@k = 1 − C(n−c, k)/C(n, k), computed in the numerically
 * stable product form 1 − ∏_{i=n−c+1}^{n} (1 − k/i); it is 1 when n − c < k.
 */

/** pass@k of one task; throws RangeError when k > n or c is out of range. */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 1 || k < 1) {
    throw new RangeError(`pass@k needs positive integers (n=${n}, c=${c}, k=${k})`);
  }
  if (c < 0 || c > n) throw new RangeError(`pass@k: c=${c} must be within 0..n=${n}`);
  if (k > n) throw new RangeError(`pass@k: k=${k} exceeds n=${n}`);
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/**
 * pass@k averaged over tasks for each requested k, keyed `pass@<k>`. A k
 * larger than some task's n cannot be estimated: its value is null and a
 * note says why.
 */
export function passAtKOverTasks(
  tasks: ReadonlyArray<{ n: number; c: number }>,
  ks: readonly number[],
): { values: Record<string, number | null>; notes: string[] } {
  const values: Record<string, number | null> = {};
  const notes: string[] = [];
  for (const k of ks) {
    const key = `pass@${k}`;
    if (tasks.length === 0) {
      values[key] = null;
      notes.push(`${key}: no tasks evaluated`);
      continue;
    }
    const minN = Math.min(...tasks.map((t) => t.n));
    if (k > minN) {
      values[key] = null;
      notes.push(`${key}: k=${k} exceeds n=${minN} completions per task (need n >= k)`);
      continue;
    }
    values[key] = tasks.reduce((sum, t) => sum + passAtK(t.n, t.c, k), 0) / tasks.length;
  }
  return { values, notes };
}
