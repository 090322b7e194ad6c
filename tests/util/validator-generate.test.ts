/**
 * The standalone validators `npm run build` generates (src/util/validator-generate.ts)
 * validate exactly as Ajv's compiled ones do, and the loader (src/util/schema.ts) uses one
 * only when it was made from the schema as it is now.
 */
import { afterAll, describe, expect, test } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateValidators, validatorSpecs } from "../../src/util/validator-generate.js";
import {
  WHOLE_SCHEMA,
  formatAjvErrors,
  generatedValidatorsDir,
  loadValidators,
  type ValidatorSpec,
} from "../../src/util/schema.js";
import { cliEntry, packageRoot } from "../../src/util/package-root.js";
import { specModuleName } from "../../src/util/validator-spec.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
/** A scratch directory; generated code requires Ajv's runtime helpers, found through its node_modules link. */
function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), "a2a-validators-"));
  dirs.push(d);
  symlinkSync(join(packageRoot, "node_modules"), join(d, "node_modules"));
  return d;
}

const generatedDir = freshDir();
generateValidators(generatedDir);
/** An empty directory: every spec is compiled with Ajv there. */
const noneDir = freshDir();

// Values that break the schemas in different ways (wrong type, unknown key, missing keys, bad enum, bad format).
const probes: unknown[] = [
  null,
  [],
  "text",
  {},
  { bogus: 1 },
  { benchmark: "humaneval", concurrency: 0, bogus: 1, sandbox: "nowhere" },
  { benchmark: "humaneval", agent: "not a url", samples: -1 },
  { event: "task_finished", task_id: 7, i: "x" },
  { schema_version: 1, benchmark: "humaneval", run_id: "r", status: "ok", rows: [{}], aggregate: [] },
];

function verdicts(spec: ValidatorSpec, dir: string): Record<string, unknown[]> {
  const { validators } = loadValidators(spec, dir);
  const out: Record<string, unknown[]> = {};
  for (const [name, validate] of Object.entries(validators)) {
    out[name] = probes.map((p) => {
      const value = structuredClone(p);
      const ok = validate(value);
      // Defaults applied in place (useDefaults) are part of the behaviour.
      return { ok, problems: formatAjvErrors(validate.errors), value };
    });
  }
  return out;
}

describe("generated validators", () => {
  test.each(validatorSpecs().map((s) => [specModuleName(s), s] as const))(
    "%s: loaded from the generated module, same verdicts, errors and defaults as compiled by Ajv",
    (_name, spec) => {
      expect(loadValidators(spec, generatedDir).source).toBe("generated");
      expect(loadValidators(spec, noneDir).source).toBe("compiled");
      const generated = verdicts(spec, generatedDir);
      expect(Object.keys(generated).length).toBeGreaterThan(0);
      expect(generated).toEqual(verdicts(spec, noneDir));
    },
  );

  test("the request config's validator applies the schema defaults", () => {
    const spec = { file: "assessment_request.schema.json", useDefaults: true };
    const validate = loadValidators(spec, generatedDir).validators[WHOLE_SCHEMA]!;
    const value: Record<string, unknown> = { benchmark: "humaneval" };
    expect(validate(value)).toBe(true);
    expect(value["dataset"]).toBeDefined();
  });

  test("runner events get one validator per $defs entry", () => {
    const { validators } = loadValidators({ file: "runner_event.schema.json", defs: true }, generatedDir);
    expect(Object.keys(validators)).toEqual(expect.arrayContaining(["run_started", "task_finished", "turn"]));
    expect(validators["task_finished"]!({ event: "task_finished", task_id: "t", i: 0 })).toBe(false);
  });

  test("a module made from another schema text (stale fingerprint) is not used: the schema is compiled", () => {
    const dir = freshDir();
    const spec = { file: "token_usage.schema.json" };
    const [path] = generateValidators(dir, [spec]);
    const text = readFileSync(path!, "utf8");
    const stale = text.replace(/(exports\["#fingerprint"\] = ")[0-9a-f]{64}/, `$1${"0".repeat(64)}`);
    expect(stale).not.toBe(text);
    writeFileSync(path!, stale);
    expect(loadValidators(spec, dir).source).toBe("compiled");
  });

  test("a module that does not load (corrupt) is not used: the schema is compiled", () => {
    const dir = freshDir();
    const spec = { file: "swebench_prediction.schema.json" };
    writeFileSync(join(dir, `${specModuleName(spec)}.cjs`), "this is not javascript(");
    expect(loadValidators(spec, dir).source).toBe("compiled");
  });

  // The build's own output is current: what `npm run build` wrote equals a fresh generation.
  test.skipIf(!existsSync(cliEntry))("dist/validators (npm run build) equals a fresh generation", () => {
    for (const spec of validatorSpecs()) {
      const name = `${specModuleName(spec)}.cjs`;
      const built = join(generatedValidatorsDir, name);
      expect(existsSync(built), `${built} missing: run \`npm run build\``).toBe(true);
      expect(readFileSync(built, "utf8"), name).toBe(readFileSync(join(generatedDir, name), "utf8"));
      expect(loadValidators(spec).source).toBe("generated");
    }
  });
});
