/**
 * The sandbox conformance suite (src/sandbox/conformance/) as vitest tests, one call per backend:
 * `describeConformance(descriptor, options)`. Each check is a test: a failed check fails with what was
 * seen, a check the backend does not claim is skipped with the reason (never passed), and a check
 * listed in `notApplicable` must be exactly that (a backend cannot pass by claiming less than it should).
 */
import { beforeAll, describe, expect, test } from "vitest";
import type { SandboxBackendDescriptor } from "../../src/sandbox/backend.js";
import {
  CONFORMANCE_CHECKS,
  runConformance,
  type ConformanceCheckName,
  type ConformanceOptions,
  type ConformanceResult,
} from "../../src/sandbox/conformance/index.js";

export interface DescribeConformanceOptions {
  /** The suite's options, or a function giving them once the tests start (a stand-in to start first). */
  options?: ConformanceOptions | (() => Promise<ConformanceOptions>);
  /** The checks this backend does not claim: reported not applicable, and no other. */
  notApplicable?: readonly ConformanceCheckName[];
  /** Skip the whole suite, with the reason in its name (no engine here). */
  skip?: string;
}

/** How long the whole suite may take on a loaded host: it waits on states, this only ends a hang. */
const SUITE_MS = 30 * 60_000;

export function describeConformance(descriptor: SandboxBackendDescriptor, o: DescribeConformanceOptions = {}): void {
  const title = `${descriptor.name} backend conformance${o.skip ? ` (skipped: ${o.skip})` : ""}`;
  describe.skipIf(o.skip !== undefined)(title, () => {
    const results = new Map<ConformanceCheckName, ConformanceResult>();
    beforeAll(async () => {
      const options = typeof o.options === "function" ? await o.options() : (o.options ?? {});
      for (const r of await runConformance(descriptor, options)) results.set(r.check, r);
    }, SUITE_MS);
    for (const check of CONFORMANCE_CHECKS)
      test(check, (ctx) => {
        const r = results.get(check);
        expect(r, `check ${check} did not run`).toBeDefined();
        if (r!.status === "failed") expect.fail(`${check}: ${r!.detail}`);
        const expectedNa = (o.notApplicable ?? []).includes(check);
        if (r!.status === "not-applicable") {
          expect(expectedNa, `${check} was not applicable (${r!.detail}), but ${descriptor.name} claims it`).toBe(true);
          ctx.skip(`not applicable: ${r!.detail}`);
        }
        expect(expectedNa, `${check} passed although listed as not applicable`).toBe(false);
      });
  });
}
