/** Order statistics for benchmark samples (milliseconds or any unit). */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}
export const median = (values) => quantile(values, 0.5);
export const p99 = (values) => quantile(values, 0.99);

/**
 * Run `fn` `warmup` times unmeasured, then `runs` times measured; returns
 * the samples (ms) and their median. Medians of >= 5 runs, never one timing.
 */
export async function measure(fn, { warmup = 1, runs = 5 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return summary(samples);
}

/**
 * Like {@link measure}, but `fn` resolves to the sample itself (ms it timed
 * around the one operation of interest), so set-up and tear-down inside `fn`
 * (starting an assessment, stopping a server) stay out of the figure.
 */
export async function measureReported(fn, { warmup = 1, runs = 5 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const v = await fn(i);
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new Error(`measureReported: sample ${i} is not a number (${v})`);
    samples.push(v);
  }
  return summary(samples);
}

/** Median, min and max of samples taken elsewhere (e.g. interleaved runs of two variants). */
export function summary(samples) {
  return { samples, median: median(samples), min: Math.min(...samples), max: Math.max(...samples) };
}

export const fmt = (x, digits = 1) =>
  x === null || x === undefined || Number.isNaN(x) ? "n/a" : Number(x).toFixed(digits);
