import { describe, expect, test } from "vitest";
import { bundleProblems, validateBundle, SMI_BUNDLE_SCHEMA_FILE } from "../../src/bundle/validate.js";
import { extractBundle } from "../../src/bundle/extract.js";
import { sampleBundle } from "./sample.js";

describe("bundle validation", () => {
  test("built bundles pass both our schema and smi_bench's", () => {
    for (const o of [
      {},
      { exitCode: 3 },
      { exitCode: null, signal: "SIGKILL" as const },
      { exitCode: null, spawnError: "ENOENT" },
      { timedOut: true },
    ]) {
      const b = sampleBundle(o);
      expect(validateBundle(b)).toEqual([]);
      expect(bundleProblems(b, SMI_BUNDLE_SCHEMA_FILE)).toEqual([]);
    }
    expect(sampleBundle({ exitCode: null, signal: "SIGKILL" }).exit_code).toBe(137);
  });

  test("a hand-broken bundle fails, each problem with its JSON path", () => {
    const b = sampleBundle() as unknown as Record<string, unknown>;
    const broken = { ...b, spec_url: "other", exit_code: "0", timings: { started_at_unix_seconds: 1.5 }, extra_key: 1 };
    delete (broken as Record<string, unknown>)["artifacts"];
    const problems = validateBundle(broken);
    const text = problems.join("\n");
    expect(text).toMatch(/evaluation_bundle \/spec_url/);
    expect(text).toMatch(/\/exit_code: must be integer/);
    expect(text).toMatch(/\/timings: missing required key "finished_at_unix_seconds"/);
    expect(text).toMatch(/unknown key "extra_key"/);
    expect(text).toMatch(/smi evaluation_bundle \/: missing required key "artifacts"/);
  });

  test("extract finds the bundle in a JSON-RPC response (DataPart or JSON TextPart)", () => {
    const b = sampleBundle();
    const asData = {
      jsonrpc: "2.0",
      id: 1,
      result: { kind: "task", artifacts: [{ name: "evaluation_bundle", parts: [{ kind: "data", data: b }] }] },
    };
    expect(extractBundle(asData)).toMatchObject({ ok: true, bundle: b });
    const asText = {
      jsonrpc: "2.0",
      id: 1,
      result: {
        artifacts: [
          {
            name: "evaluation_bundle",
            parts: [
              { kind: "text", text: "summary" },
              { kind: "text", text: JSON.stringify(b) },
            ],
          },
        ],
      },
    };
    expect(extractBundle(asText)).toMatchObject({ ok: true, bundle: b });
    expect(extractBundle({ jsonrpc: "2.0", id: 1, error: { code: -32001 } }).ok).toBe(false);
  });
});
