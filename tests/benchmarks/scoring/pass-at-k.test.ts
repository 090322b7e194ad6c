import { describe, expect, it } from "vitest";
import { passAtK, passAtKOverTasks } from "../../../src/benchmarks/scoring/pass-at-k.js";

// Direct formula 1 - C(n-c,k)/C(n,k) with exact integer binomials, for comparison.
function binom(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}
const direct = (n: number, c: number, k: number): number => 1 - binom(n - c, k) / binom(n, k);

describe("pass@k (Chen et al. 2021)", () => {
  it("matches hand-computed values", () => {
    expect(passAtK(1, 1, 1)).toBe(1);
    expect(passAtK(1, 0, 1)).toBe(0);
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12); // c/n
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12); // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 12); // 1 - C(3,2)/C(4,2) = 1 - 3/6
    expect(passAtK(10, 2, 5)).toBeCloseTo(1 - 56 / 252, 12); // C(8,5)=56, C(10,5)=252
  });
  it("is 1 when n - c < k", () => {
    expect(passAtK(5, 4, 2)).toBe(1);
    expect(passAtK(3, 3, 3)).toBe(1);
  });
  it("agrees with the binomial form over a grid", () => {
    for (let n = 1; n <= 20; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++) {
          expect(passAtK(n, c, k)).toBeCloseTo(direct(n, c, k), 10);
        }
  });
  it("stays stable where binomials overflow", () => {
    const v = passAtK(200, 1, 100);
    expect(v).toBeCloseTo(0.5, 12); // 1 - C(199,100)/C(200,100) = 1 - 100/200
  });
  it("refuses k > n", () => {
    expect(() => passAtK(3, 1, 5)).toThrow(RangeError);
  });
  it("averages over tasks and reports k > n as null with a note", () => {
    const { values, notes } = passAtKOverTasks(
      [
        { n: 2, c: 2 },
        { n: 2, c: 0 },
        { n: 2, c: 1 },
      ],
      [1, 2, 10],
    );
    expect(values["pass@1"]).toBeCloseTo((1 + 0 + 0.5) / 3, 12);
    expect(values["pass@2"]).toBeCloseTo((1 + 0 + 1) / 3, 12);
    expect(values["pass@10"]).toBeNull();
    expect(notes.join()).toMatch(/pass@10: k=10 exceeds n=2/);
  });
});
