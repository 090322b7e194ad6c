/**
 * Amber's manifest rules, as its manifest format documentation states them (RDI-Foundation/amber,
 * compiler/manifest/README.md: parse-time validation, the `config_schema` profile, linting, and the
 * link-time rules a resolver enforces), written here from that text so a test can hold our manifests
 * to them without the Amber compiler (a Rust tool not installed here). Each problem is one sentence
 * naming the manifest field.
 */
import JSON5 from "json5";
import { readFileSync } from "node:fs";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Manifest = { [k: string]: Json };

export const CAPABILITY_KINDS = ["mcp", "llm", "http", "docker", "a2a", "storage"] as const;
export const EXPERIMENTAL_FEATURES = ["docker", "kvm"] as const;
const FRAMEWORK_CAPABILITIES: Record<string, string> = { docker: "docker", kvm: "kvm" };
const CONFIG_NAME = /^(?!.*__)[a-z][a-z0-9_]*$/;
const UNSUPPORTED_SCHEMA_KEYWORDS = [
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "propertyNames",
  "dependentSchemas",
  "dependentRequired",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "$recursiveRef",
];

export function readManifest(path: string): Manifest {
  const value = JSON5.parse<Json>(readFileSync(path, "utf8"));
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error(`${path}: not an object`);
  return value;
}

const isObject = (v: Json | undefined): v is { [k: string]: Json } =>
  v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);
const objectAt = (m: { [k: string]: Json }, key: string): { [k: string]: Json } => {
  const v = m[key];
  return isObject(v) ? v : {};
};

function semver(v: string): [number, number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}
const atLeast = (v: [number, number, number], w: [number, number, number]) =>
  v[0] !== w[0] ? v[0] > w[0] : v[1] !== w[1] ? v[1] > w[1] : v[2] >= w[2];

/** Every `${source.path}` in a string. */
export function interpolations(s: string): string[] {
  return [...s.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!.trim());
}

/** The program's argv items and env values as (text, when, where) triples. */
function programStrings(program: { [k: string]: Json }): { text: string; when: string | undefined; where: string }[] {
  const out: { text: string; when: string | undefined; where: string }[] = [];
  const argv = program["entrypoint"] ?? program["args"];
  const argvItems = typeof argv === "string" ? [argv] : Array.isArray(argv) ? argv : [];
  argvItems.forEach((item, i) => {
    if (typeof item === "string") out.push({ text: item, when: undefined, where: `program.entrypoint[${i}]` });
    else if (isObject(item)) {
      const when = typeof item["when"] === "string" ? item["when"] : undefined;
      const a = item["argv"] ?? item["arg"];
      for (const t of typeof a === "string" ? [a] : Array.isArray(a) ? a : [])
        if (typeof t === "string") out.push({ text: t, when, where: `program.entrypoint[${i}]` });
    }
  });
  for (const [name, v] of Object.entries(objectAt(program, "env"))) {
    if (typeof v === "string") out.push({ text: v, when: undefined, where: `program.env.${name}` });
    else if (isObject(v) && typeof v["value"] === "string")
      out.push({
        text: v["value"],
        when: typeof v["when"] === "string" ? v["when"] : undefined,
        where: `program.env.${name}`,
      });
  }
  return out;
}

function checkConfigSchema(schema: Json, at: string, problems: string[], root: boolean): void {
  if (!isObject(schema)) {
    problems.push(`${at}: a schema must be an object`);
    return;
  }
  const types = schema["type"] === undefined ? [] : Array.isArray(schema["type"]) ? schema["type"] : [schema["type"]];
  if (root && !types.includes("object")) problems.push(`${at}: the root schema must be object-shaped (type "object")`);
  if ((schema["properties"] !== undefined || schema["required"] !== undefined) && !types.includes("object"))
    problems.push(`${at}: a schema with properties or required must include "object" in type`);
  for (const k of UNSUPPORTED_SCHEMA_KEYWORDS)
    if (k in schema) problems.push(`${at}: keyword "${k}" is outside Amber's config_schema profile`);
  if ("additionalProperties" in schema && typeof schema["additionalProperties"] !== "boolean")
    problems.push(`${at}.additionalProperties: must be a boolean`);
  if ("secret" in schema && typeof schema["secret"] !== "boolean") problems.push(`${at}.secret: must be a boolean`);
  if (typeof schema["$ref"] === "string" && !schema["$ref"].startsWith("#"))
    problems.push(`${at}.$ref: only local JSON pointers are allowed`);
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  for (const r of required)
    if (typeof r !== "string" || !CONFIG_NAME.test(r)) problems.push(`${at}.required: bad name ${JSON.stringify(r)}`);
  for (const [name, sub] of Object.entries(objectAt(schema, "properties"))) {
    if (!CONFIG_NAME.test(name)) problems.push(`${at}.properties.${name}: property names must match ${CONFIG_NAME}`);
    checkConfigSchema(sub, `${at}.properties.${name}`, problems, false);
  }
  if (isObject(schema["items"])) checkConfigSchema(schema["items"], `${at}.items`, problems, false);
}

/** Parse-time rules and lints of one manifest (no child resolution). */
export function manifestProblems(m: Manifest): string[] {
  const problems: string[] = [];
  const version = typeof m["manifest_version"] === "string" ? semver(m["manifest_version"]) : null;
  if (!version) problems.push(`manifest_version: must be a SemVer string`);
  else if (!atLeast(version, [0, 1, 0]) || atLeast(version, [1, 0, 0]))
    problems.push(`manifest_version: must satisfy >=0.1.0, <1.0.0`);
  const features = Array.isArray(m["experimental_features"]) ? m["experimental_features"] : [];
  for (const f of features)
    if (!(EXPERIMENTAL_FEATURES as readonly Json[]).includes(f))
      problems.push(`experimental_features: unknown ${JSON.stringify(f)}`);

  const slots = objectAt(m, "slots");
  const provides = objectAt(m, "provides");
  const components = objectAt(m, "components");
  const exportsMap = objectAt(m, "exports");
  for (const [section, names] of [
    ["components", Object.keys(components)],
    ["slots", Object.keys(slots)],
    ["provides", Object.keys(provides)],
    ["exports", Object.keys(exportsMap)],
  ] as const)
    for (const n of names) if (n.includes(".")) problems.push(`${section}.${n}: names must not contain "."`);
  for (const n of Object.keys(slots)) if (n in provides) problems.push(`${n}: declared in both slots and provides`);
  for (const [n, s] of Object.entries(slots)) {
    if (!isObject(s) || !(CAPABILITY_KINDS as readonly Json[]).includes(s["kind"] ?? null))
      problems.push(`slots.${n}.kind: must be one of ${CAPABILITY_KINDS.join(", ")}`);
  }

  // program
  const program = m["program"];
  const endpoints = new Set<string>();
  if (program !== undefined) {
    if (!isObject(program)) problems.push(`program: must be an object`);
    else {
      const variants = ["image", "path", "vm"].filter((k) => k in program);
      if (variants.length !== 1) problems.push(`program: must declare exactly one of image, path, vm`);
      if ("entrypoint" in program && !("image" in program)) problems.push(`program.entrypoint: only valid with image`);
      if ("image" in program && !("entrypoint" in program))
        problems.push(`program.entrypoint: required for image programs`);
      if ("args" in program && !("path" in program)) problems.push(`program.args: only valid with path`);
      const eps = objectAt(program, "network")["endpoints"];
      for (const [i, ep] of (Array.isArray(eps) ? eps : []).entries()) {
        if (!isObject(ep) || typeof ep["name"] !== "string") {
          problems.push(`program.network.endpoints[${i}]: needs a name`);
          continue;
        }
        if (endpoints.has(ep["name"])) problems.push(`program.network.endpoints: duplicate name "${ep["name"]}"`);
        endpoints.add(ep["name"]);
        const port = ep["port"];
        if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
          problems.push(`program.network.endpoints[${i}].port: must be an integer 1-65535`);
      }
      const argv = program["entrypoint"];
      const objectItems =
        (Array.isArray(argv) && argv.some(isObject)) || Object.values(objectAt(program, "env")).some(isObject);
      if (objectItems && version && !atLeast(version, [0, 2, 0]))
        problems.push(`program: object items (when) in entrypoint/env need manifest_version >= 0.2.0`);
      for (const mount of Array.isArray(program["mounts"]) ? program["mounts"] : []) {
        if (isObject(mount) && mount["from"] === "framework.docker" && !features.includes("docker"))
          problems.push(`program.mounts: framework.docker needs experimental_features ["docker"]`);
      }
    }
  }
  for (const [n, p] of Object.entries(provides)) {
    if (!isObject(p)) {
      problems.push(`provides.${n}: must be an object`);
      continue;
    }
    for (const k of Object.keys(p))
      if (!["kind", "profile", "endpoint"].includes(k))
        problems.push(`provides.${n}.${k}: unknown field (provides are strict)`);
    if (!(CAPABILITY_KINDS as readonly Json[]).includes(p["kind"] ?? null) || p["kind"] === "storage")
      problems.push(`provides.${n}.kind: must be a capability kind other than storage`);
    if (typeof p["endpoint"] !== "string" || !endpoints.has(p["endpoint"]))
      problems.push(`provides.${n}.endpoint: must name a program.network.endpoints entry`);
  }

  // config_schema and interpolation
  const schema = m["config_schema"];
  if (schema !== undefined) checkConfigSchema(schema, "config_schema", problems, true);
  const properties = isObject(schema) ? objectAt(schema, "properties") : {};
  const required = isObject(schema) && Array.isArray(schema["required"]) ? schema["required"] : [];
  const usedConfig = new Set<string>();
  const usedSlots = new Set<string>();
  const refCheck = (ref: string, where: string, guard: string | undefined) => {
    const [source, first] = ref.split(".");
    if (source === "config") {
      if (!first || !(first in properties)) problems.push(`${where}: \${${ref}} names no config_schema property`);
      else {
        usedConfig.add(first);
        const prop = properties[first];
        const defaulted = isObject(prop) && "default" in prop;
        if (where.includes("entrypoint") && !required.includes(first) && !defaulted && guard !== `config.${first}`)
          problems.push(`${where}: optional config \`${first}\` in a command argument needs a \`when\` guard`);
      }
    } else if (source === "slots") {
      if (!first || !(first in slots)) problems.push(`${where}: \${${ref}} names no declared slot`);
      else usedSlots.add(first);
    } else if (source !== "item") problems.push(`${where}: unknown interpolation source in \${${ref}}`);
  };
  if (isObject(program)) {
    for (const s of programStrings(program)) {
      if (s.when !== undefined) refCheck(s.when, `${s.where} (when)`, undefined);
      for (const ref of interpolations(s.text)) refCheck(ref, s.where, s.when);
    }
    if (typeof program["image"] === "string")
      for (const ref of interpolations(program["image"])) refCheck(ref, "program.image", undefined);
    for (const mount of Array.isArray(program["mounts"]) ? program["mounts"] : [])
      if (isObject(mount) && typeof mount["from"] === "string") {
        const [src, name] = mount["from"].split(".");
        if (src === "config" && name) usedConfig.add(name);
        if (src === "slots" && name) usedSlots.add(name);
      }
  }
  for (const c of Object.values(components))
    if (isObject(c) && c["config"] !== undefined)
      for (const ref of interpolations(JSON.stringify(c["config"]))) refCheck(ref, "components.*.config", undefined);

  // exports and bindings
  const exportTargets = new Set<string>();
  for (const [name, target] of Object.entries(exportsMap)) {
    if (typeof target !== "string") {
      problems.push(`exports.${name}: must be a string target`);
      continue;
    }
    exportTargets.add(target);
    const [head, cap] = target.split(".");
    if (head === "provides" && !(cap && cap in provides)) problems.push(`exports.${name}: no provide "${cap}"`);
    else if (head === "slots" && !(cap && cap in slots)) problems.push(`exports.${name}: no slot "${cap}"`);
    else if (head?.startsWith("#") && !(head.slice(1) in components))
      problems.push(`exports.${name}: no child "${head}"`);
    else if (head !== "provides" && head !== "slots" && !head?.startsWith("#"))
      problems.push(`exports.${name}: target must be provides.<name>, slots.<name> or #child.<export>`);
    if (head === "slots" && cap) usedSlots.add(cap);
  }
  const bindings = Array.isArray(m["bindings"]) ? m["bindings"] : [];
  for (const [i, b] of bindings.entries()) {
    if (!isObject(b) || typeof b["to"] !== "string" || typeof b["from"] !== "string") {
      problems.push(`bindings[${i}]: needs string to and from`);
      continue;
    }
    const [to, slot] = b["to"].split(".");
    if (!to?.startsWith("#") || !slot) problems.push(`bindings[${i}].to: must be #child.slot`);
    else if (!(to.slice(1) in components)) problems.push(`bindings[${i}].to: no child "${to}"`);
    const [from, cap] = b["from"].split(".");
    if (from === "framework") {
      if (!cap || !(cap in FRAMEWORK_CAPABILITIES)) problems.push(`bindings[${i}].from: unknown framework capability`);
      else if (!features.includes(FRAMEWORK_CAPABILITIES[cap]!))
        problems.push(`bindings[${i}].from: framework.${cap} needs experimental_features ["${cap}"]`);
    } else if (from?.startsWith("#")) {
      if (!(from.slice(1) in components)) problems.push(`bindings[${i}].from: no child "${from}"`);
    } else if (from === "slots") {
      if (!(cap && cap in slots)) problems.push(`bindings[${i}].from: no slot "${cap}"`);
      else usedSlots.add(cap);
    } else if (from !== "provides" && from !== "resources")
      problems.push(`bindings[${i}].from: unknown source "${from}"`);
  }

  // lints (Amber reports them; we hold our manifests to none)
  for (const n of Object.keys(slots)) if (!usedSlots.has(n)) problems.push(`slots.${n}: unused (lint)`);
  for (const n of Object.keys(properties))
    if (!usedConfig.has(n)) problems.push(`config_schema.properties.${n}: unused (lint)`);
  for (const n of Object.keys(provides))
    if (![...exportTargets].some((t) => t === `provides.${n}` || t === n))
      problems.push(`provides.${n}: not exported (lint)`);
  return problems;
}

/** What a child manifest offers its parent: slots (with kind, optional), exports (with kind), features. */
export interface ComponentInterface {
  slots: Record<string, { kind: string; optional: boolean }>;
  exports: Record<string, string>;
  experimentalFeatures: string[];
  configSchema: Json | undefined;
}

/** The interface of a leaf manifest (exports that point at its own provides or slots). */
export function interfaceOf(m: Manifest): ComponentInterface {
  const slots: ComponentInterface["slots"] = {};
  for (const [n, s] of Object.entries(objectAt(m, "slots")))
    if (isObject(s))
      slots[n] = { kind: JSON.stringify(s["kind"] ?? null).replace(/"/g, ""), optional: s["optional"] === true };
  const provides = objectAt(m, "provides");
  const exportsOut: Record<string, string> = {};
  for (const [name, target] of Object.entries(objectAt(m, "exports"))) {
    if (typeof target !== "string") continue;
    const [head, cap] = target.includes(".") ? target.split(".") : ["provides", target];
    const declared = head === "provides" ? provides[cap!] : head === "slots" ? objectAt(m, "slots")[cap!] : undefined;
    if (isObject(declared) && typeof declared["kind"] === "string") exportsOut[name] = declared["kind"];
  }
  const features = Array.isArray(m["experimental_features"]) ? m["experimental_features"].map(String) : [];
  return { slots, exports: exportsOut, experimentalFeatures: features, configSchema: m["config_schema"] };
}

/**
 * Link-time rules of a scenario over its resolved children: every binding's slot and export exist and
 * their kinds match, every required slot is bound (once, unless `multiple`), and every child's
 * experimental features are listed by the parent. `framework.docker` provides kind "docker".
 */
export function linkProblems(scenario: Manifest, children: Record<string, ComponentInterface>): string[] {
  const problems: string[] = [];
  const features = Array.isArray(scenario["experimental_features"])
    ? scenario["experimental_features"].map(String)
    : [];
  for (const [name, child] of Object.entries(children))
    for (const f of child.experimentalFeatures)
      if (!features.includes(f))
        problems.push(`components.${name}: its experimental feature "${f}" is not listed by the scenario`);
  const bound = new Map<string, number>();
  const bindings = Array.isArray(scenario["bindings"]) ? scenario["bindings"] : [];
  for (const [i, b] of bindings.entries()) {
    if (!isObject(b) || typeof b["to"] !== "string" || typeof b["from"] !== "string") continue;
    const [to, slot] = b["to"].slice(1).split(".");
    const target = children[to!]?.slots[slot!];
    if (!target) {
      problems.push(`bindings[${i}]: ${b["to"]} is not a slot of the child`);
      continue;
    }
    bound.set(`${to}.${slot}`, (bound.get(`${to}.${slot}`) ?? 0) + 1);
    let kind: string | undefined;
    if (b["from"].startsWith("framework.")) kind = b["from"].slice("framework.".length);
    else if (b["from"].startsWith("#")) {
      const [from, cap] = b["from"].slice(1).split(".");
      kind = children[from!]?.exports[cap!];
      if (kind === undefined) problems.push(`bindings[${i}]: ${b["from"]} is not an export of the child`);
    }
    if (kind !== undefined && kind !== target.kind)
      problems.push(`bindings[${i}]: ${b["from"]} (${kind}) does not fit ${b["to"]} (${target.kind})`);
  }
  for (const [name, child] of Object.entries(children))
    for (const [slot, s] of Object.entries(child.slots)) {
      const n = bound.get(`${name}.${slot}`) ?? 0;
      if (n === 0 && !s.optional) problems.push(`#${name}.${slot}: required slot left unbound`);
      if (n > 1) problems.push(`#${name}.${slot}: bound ${n} times (not a multiple slot)`);
    }
  return problems;
}
