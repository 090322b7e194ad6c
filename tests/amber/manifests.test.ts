/**
 * The Amber manifests we ship (amber/): held to Amber's manifest rules (amber-rules.ts), linked into
 * the scenario with the AgentBeats gateway's interface, and checked against our own CLI — the
 * entrypoints parse with the commands' own parsers, every env var is one our code reads, the
 * default assessment config is one our schema accepts.
 */
import { describe, expect, it } from "vitest";
import { Ajv } from "ajv";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";
import { parseGreenArgs } from "../../src/cli/green.js";
import { parsePurpleArgs } from "../../src/cli/purple.js";
import { settingsFromEnv } from "../../src/green/settings.js";
import { solverModes } from "../../src/purple/solvers/index.js";
import { checkConfig } from "../../src/request-config/resolve.js";
import {
  interfaceOf,
  linkProblems,
  manifestProblems,
  readManifest,
  type ComponentInterface,
  type Json,
  type Manifest,
} from "./amber-rules.js";

const dir = join(packageRoot, "amber");
const green = readManifest(join(dir, "green", "amber-manifest.json5"));
const purple = readManifest(join(dir, "purple", "amber-manifest.json5"));
const scenario = readManifest(join(dir, "amber-scenario.json5"));

/**
 * The AgentBeats gateway's side of the wiring (RDI-Foundation/agentbeats-gateway amber-manifest.json5 at
 * the commit the scenario pins): slots green and purple1..5 of kind a2a (purple2..5 optional), a legacy
 * optional mcp slot, exports proxy (a2a) and results (http), config assessment_config and
 * participant_roles (both required objects).
 */
const GATEWAY: ComponentInterface = {
  slots: {
    green: { kind: "a2a", optional: false },
    green_mcp: { kind: "mcp", optional: true },
    purple1: { kind: "a2a", optional: false },
    purple2: { kind: "a2a", optional: true },
    purple3: { kind: "a2a", optional: true },
    purple4: { kind: "a2a", optional: true },
    purple5: { kind: "a2a", optional: true },
  },
  exports: { proxy: "a2a", results: "http" },
  experimentalFeatures: [],
  configSchema: {
    type: "object",
    properties: { assessment_config: { type: "object" }, participant_roles: { type: "object" } },
    required: ["assessment_config", "participant_roles"],
    additionalProperties: true,
  },
};

type Obj = { [k: string]: Json };
const obj = (v: Json | undefined): Obj => v as Obj;
const program = (m: Manifest) => obj(m["program"]);
const entrypoint = (m: Manifest) => program(m)["entrypoint"] as string[];
const envNames = (m: Manifest) => Object.keys(obj(program(m)["env"]));

/** The Dockerfile target's ENTRYPOINT (exec form) and the port it EXPOSEs. */
function dockerfileTarget(target: string): { entrypoint: string[]; exposed: number[] } {
  const text = readFileSync(join(packageRoot, "Dockerfile"), "utf8");
  const stages = text.split(/^FROM /m);
  const stage = stages.find((s) => new RegExp(`\\bAS ${target}\\s*$`, "m").test(s.split("\n")[0]!));
  if (!stage) throw new Error(`Dockerfile has no stage ${target}`);
  const ep = /^ENTRYPOINT (\[.*\])$/m.exec(stage);
  const exposed = [...text.matchAll(/^EXPOSE (\d+)$/gm)].map((m) => Number(m[1]));
  return { entrypoint: JSON.parse(ep![1]!) as string[], exposed };
}

/** Every .ts file under src/, concatenated (to ask whether our code reads an env var). */
function sourceText(): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) out.push(readFileSync(p, "utf8"));
    }
  };
  walk(join(packageRoot, "src"));
  return out.join("\n");
}

/** The config that makes each `when` guard true, with values of the schema's types. */
function sampleConfig(m: Manifest): Record<string, string> {
  const props = obj(obj(m["config_schema"])["properties"]);
  const values: Record<string, string> = {};
  for (const [k, s] of Object.entries(props)) {
    const schema = obj(s);
    values[k] = Array.isArray(schema["enum"])
      ? JSON.stringify(schema["enum"][0]).replace(/"/g, "")
      : schema["type"] === "integer"
        ? String((schema["minimum"] as number | undefined) ?? 1)
        : "x";
  }
  return values;
}

/** The env a manifest's program gets with every guard true (slot URLs as a docker gateway's). */
function resolvedEnv(m: Manifest, config: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(program(m)["env"]))) {
    const text = typeof v === "string" ? v : (obj(v)["value"] as string);
    env[k] = text.replace(/\$\{([^}]*)\}/g, (_, ref: string) =>
      ref.startsWith("config.") ? config[ref.slice(7)]! : "tcp://127.0.0.1:2375",
    );
  }
  return env;
}

describe("the Amber manifests follow Amber's manifest rules", () => {
  it.each([
    ["green", green],
    ["purple", purple],
    ["scenario", scenario],
  ])("%s: no parse-time problem and no lint", (_name, m) => {
    expect(manifestProblems(m)).toEqual([]);
  });

  it("the rules catch what they claim to (each mutation of the green manifest is reported)", () => {
    const mutate = (f: (m: Obj) => void): string[] => {
      const copy: Obj = structuredClone(green);
      f(copy);
      return manifestProblems(copy);
    };
    expect(mutate((m) => (m["manifest_version"] = "1.0.0"))).toContainEqual(expect.stringMatching(/manifest_version/));
    expect(mutate((m) => (m["experimental_features"] = []))).toEqual([]); // a slot of kind docker needs no feature…
    expect(
      mutate((m) => {
        obj(m["provides"])["a2a"] = { kind: "a2a", endpoint: "nope" };
      }),
    ).toContainEqual(expect.stringMatching(/provides\.a2a\.endpoint/));
    expect(
      mutate((m) => {
        (obj(m["program"])["entrypoint"] as string[]).push("--x", "${config.log_level}");
      }),
    ).toContainEqual(expect.stringMatching(/needs a `when` guard/));
    expect(
      mutate((m) => {
        obj(obj(m["program"])["env"])["X"] = "${slots.nope.url}";
      }),
    ).toContainEqual(expect.stringMatching(/no declared slot/));
    expect(
      mutate((m) => {
        obj(obj(m["config_schema"])["properties"])["unused_thing"] = { type: "string" };
      }),
    ).toContainEqual(expect.stringMatching(/unused_thing: unused/));
    expect(
      mutate((m) => {
        obj(obj(m["config_schema"])["properties"])["Bad"] = { type: "string", anyOf: [] };
      }),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/property names/), expect.stringMatching(/anyOf/)]));
    expect(mutate((m) => (m["manifest_version"] = "0.1.0"))).toContainEqual(expect.stringMatching(/>= 0\.2\.0/));
  });

  it("the scenario links: every binding fits a slot of its kind, required slots bound, features listed", () => {
    const children = { gateway: GATEWAY, green: interfaceOf(green), agent: interfaceOf(purple) };
    expect(linkProblems(scenario, children)).toEqual([]);
    // …and the link rules can fail: the green's docker feature must be listed by the scenario.
    const noFeature = { ...scenario, experimental_features: [] };
    expect(linkProblems(noFeature, children)).toContainEqual(expect.stringMatching(/experimental feature "docker"/));
    const swapped = { ...scenario, bindings: [{ to: "#gateway.green", from: "#gateway.results" }] as Json };
    expect(linkProblems(swapped, children)).toContainEqual(expect.stringMatching(/required slot left unbound/));
  });

  it("each child's config in the scenario satisfies that child's config_schema", () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    ajv.addKeyword({ keyword: "secret", schemaType: "boolean" });
    const components = obj(scenario["components"]);
    const schemas: Record<string, Json | undefined> = {
      gateway: GATEWAY.configSchema,
      green: green["config_schema"],
      agent: purple["config_schema"],
    };
    for (const [name, c] of Object.entries(components)) {
      const config = typeof c === "string" ? {} : (obj(c)["config"] ?? {});
      const validate = ajv.compile(schemas[name] as object);
      expect(validate(config), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});

describe("the Amber manifests agree with our CLI and images", () => {
  it("green: the entrypoint is the image's ENTRYPOINT plus flags `a2a-bench green` accepts, on the endpoint's port", () => {
    const { entrypoint: imageEntrypoint, exposed } = dockerfileTarget("green");
    const argv = entrypoint(green);
    expect(argv.slice(0, imageEntrypoint.length)).toEqual(imageEntrypoint);
    const args = parseGreenArgs(argv.slice(imageEntrypoint.length));
    const endpoint = obj((obj(program(green)["network"])["endpoints"] as Json[])[0]);
    expect(args).toMatchObject({ host: "0.0.0.0", port: endpoint["port"] });
    expect(exposed).toContain(args.port);
    expect(args.cardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/); // loopback: the gateway rewrites it
  });

  it("purple: the manifest offers every mode `a2a-bench purple --mode` has, but replay (it needs a trajectory file)", () => {
    const { entrypoint: imageEntrypoint } = dockerfileTarget("purple");
    const argv = entrypoint(purple);
    expect(argv.slice(0, imageEntrypoint.length)).toEqual(imageEntrypoint);
    const modeSchema = obj(obj(obj(purple["config_schema"])["properties"])["mode"]);
    expect([...(modeSchema["enum"] as string[])].sort()).toEqual(
      solverModes()
        .filter((m) => m !== "replay")
        .sort(),
    );
    for (const mode of modeSchema["enum"] as string[]) {
      const rest = argv.slice(imageEntrypoint.length).map((a) => a.replace("${config.mode}", mode));
      expect(parsePurpleArgs(rest)).toMatchObject({ mode, host: "0.0.0.0", port: 9009 });
    }
  });

  it("every env var the manifests set is one our code reads; the green's take effect", () => {
    const src = sourceText();
    for (const name of [...envNames(green), ...envNames(purple)])
      expect(src, `no source file reads ${name}`).toMatch(new RegExp(`["'\`.]${name}["'\`\\]]|env\\.${name}\\b`));
    const config = sampleConfig(green);
    const env = resolvedEnv(green, config);
    const settings = settingsFromEnv(env);
    expect(settings.allowUnauthenticated).toBe(true);
    expect(settings.heartbeatMs).toBe(Number(config["heartbeat_seconds"]) * 1000);
    expect(settings.maxConcurrent).toBe(Number(config["max_concurrent_tasks"]));
  });

  it("the default assessment config is one our schema accepts, for the roles the green names", () => {
    const meta = obj(green["metadata"]);
    expect(checkConfig(meta["assessment_config"])).toEqual([]);
    const gatewayConfig = obj(obj(obj(scenario["components"])["gateway"])["config"]);
    expect(checkConfig(gatewayConfig["assessment_config"])).toEqual([]);
    expect(gatewayConfig["assessment_config"]).toEqual(meta["assessment_config"]);
    expect(Object.values(obj(gatewayConfig["participant_roles"]))).toEqual(meta["participant_roles"]);
    // The quick-submit record's participants come from metadata.agentbeats_ids: the green and every role.
    const ids = obj(obj(scenario["metadata"])["agentbeats_ids"]);
    expect(Object.keys(ids).sort()).toEqual(
      ["green", ...Object.values(obj(gatewayConfig["participant_roles"]))].sort(),
    );
    for (const id of Object.values(ids)) expect(typeof id === "string" && id.length > 0).toBe(true);
    // docs/amber.md's quick-submit walkthrough: the scenario's time budget stays below the 30-minute window.
    const budget = obj(gatewayConfig["assessment_config"])["time_budget_seconds"];
    expect(typeof budget === "number" && budget > 0 && budget < 30 * 60).toBe(true);
    // The heartbeat the manifest allows stays inside the gateway's 300 s per proxied request.
    const heartbeat = obj(obj(obj(green["config_schema"])["properties"])["heartbeat_seconds"]);
    expect(heartbeat["maximum"]).toBeLessThan(300);
  });
});
