/**
 * Load and validate `scenario.toml` (both layouts). Ajv checks the parsed
 * TOML against the layout's schema; every problem names the file, the key
 * (TOML dotted path) and its line in the source.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import type { ErrorObject } from "ajv";
import { BenchError } from "../util/errors.js";
import { getValidator, formatAjvErrors } from "../util/schema.js";
import { cliEntry } from "../util/package-root.js";
import type { AssessmentConfig } from "../request-config/config.js";
import { checkConfig } from "../request-config/resolve.js";
import { lineOfPath, pointerSegments } from "./toml-lines.js";
import {
  AGENT_CARD_PATH,
  DEFAULT_SMOKE_CONFIG,
  GREEN_SERVICE,
  composeEndpoint,
  endpointFor,
  type Scenario,
  type ScenarioAgent,
  type ScenarioLayout,
} from "./spec.js";

/** File name of a scenario inside its directory. */
export const SCENARIO_FILE = "scenario.toml";

/** scenario.toml unreadable, unparsable or invalid; `problems` holds one line per finding. */
export class ScenarioConfigError extends BenchError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super("E_SCENARIO_CONFIG", problems.join("\n"));
    this.problems = problems;
  }
}

const SCHEMA_OF: Record<ScenarioLayout, string> = {
  smi: "scenario.schema.json",
  agentbeats: "scenario_agentbeats.schema.json",
};

/** Which layout a parsed document uses: the tutorial's tables, else smi_bench's. */
export function detectLayout(doc: Record<string, unknown>): ScenarioLayout {
  return "green_agent" in doc || "participants" in doc ? "agentbeats" : "smi";
}

/** TOML-style dotted key for JSON pointer segments: `agents[1].agent_port`. */
function dotted(segments: readonly string[]): string {
  let out = "";
  for (const s of segments) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else out += out === "" ? s : `.${s}`;
  }
  return out === "" ? "(top level)" : out;
}

/** One "file:line: key: problem" line per Ajv error. */
function describeErrors(file: string, source: string, errors: ErrorObject[], rootSegments: string[] = []): string[] {
  return errors.map((e) => {
    const at = [...rootSegments, ...pointerSegments(e.instancePath)];
    let keyPath = at;
    let problem: string;
    if (e.keyword === "additionalProperties") {
      const extra = String((e.params as { additionalProperty: string }).additionalProperty);
      keyPath = [...at, extra];
      problem = "unknown key";
    } else if (e.keyword === "required") {
      const missing = String((e.params as { missingProperty: string }).missingProperty);
      keyPath = [...at, missing];
      problem = "missing required key";
    } else {
      // formatAjvErrors gives "path: message"; keep only the message part.
      const formatted = formatAjvErrors([e])[0] ?? e.message ?? e.keyword;
      problem = formatted.slice(formatted.indexOf(": ") + 2);
    }
    const line = lineOfPath(source, keyPath);
    return `${file}:${line}: ${dotted(keyPath)}: ${problem}`;
  });
}

/** Resolve a scenario argument (directory or a .toml file) to its file. */
export function scenarioFileOf(dirOrFile: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, dirOrFile);
  try {
    if (statSync(abs).isDirectory()) return join(abs, SCENARIO_FILE);
  } catch {
    // Not there: report below with the path the user meant.
  }
  return abs.endsWith(".toml") ? abs : join(abs, SCENARIO_FILE);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Tutorial `cmd`: run through /bin/sh, `exec` so the pid is the agent itself; `a2a-bench` → this package's CLI. */
function shellCommand(cmd: string): { file: string; args: string[] } {
  const own = /^\s*a2a-bench(\s|$)/.test(cmd)
    ? cmd.replace(/^\s*a2a-bench/, `${shellQuote(process.execPath)} ${shellQuote(cliEntry)}`)
    : cmd;
  return { file: "/bin/sh", args: ["-c", `exec ${own}`] };
}

interface SmiAgentToml {
  name?: string;
  card: string;
  agent_host: string;
  agent_port: number;
  is_green: boolean;
  role?: string;
  mode?: "echo" | "gold" | "openai";
  args?: string[];
  model_name?: string;
}

interface SmiToml {
  scenario: { name: string };
  agents: SmiAgentToml[];
  config?: Record<string, unknown>;
}

interface TutorialAgentToml {
  endpoint?: string;
  cmd?: string;
  role?: string;
  name?: string;
  agentbeats_id?: string;
  image?: string;
  env?: Record<string, string>;
}

interface TutorialToml {
  green_agent: TutorialAgentToml;
  participants: TutorialAgentToml[];
  config?: Record<string, unknown>;
}

/** Arguments of our own `green`/`purple` subcommand for an smi-layout agent. */
export function ownAgentArgs(a: SmiAgentToml): string[] {
  // `card` is not passed on: our agents build their card from the package's scenario_smi/*_agent_card.toml
  // and --card-url; the key is kept (and checked to exist) for smi_bench compatibility.
  const args = [
    cliEntry,
    a.is_green ? "green" : "purple",
    "--host",
    a.agent_host,
    "--port",
    String(a.agent_port),
    "--card-url",
    endpointFor(a.agent_host, a.agent_port),
  ];
  if (!a.is_green) {
    if (a.mode !== undefined) args.push("--mode", a.mode);
    if (a.mode === "openai" && a.model_name) args.push("--model", a.model_name);
  }
  return [...args, ...(a.args ?? [])];
}

function fromSmi(doc: SmiToml): ScenarioAgent[] {
  const agents = doc.agents.map((a): ScenarioAgent => {
    const endpoint = endpointFor(a.agent_host, a.agent_port);
    const role = a.is_green ? "green" : (a.role ?? "agent");
    return {
      name: a.name ?? (a.is_green ? "green" : doc.agents.filter((x) => !x.is_green).length === 1 ? "purple" : role),
      isGreen: a.is_green,
      role,
      host: a.agent_host,
      port: a.agent_port,
      endpoint,
      cardUrl: endpoint + AGENT_CARD_PATH,
      command: { file: process.execPath, args: ownAgentArgs(a) },
      env: {},
      agentbeatsId: undefined,
    };
  });
  return [...agents.filter((a) => a.isGreen), ...agents.filter((a) => !a.isGreen)];
}

/** Role of the i-th participant of a tutorial/leaderboard scenario. */
function participantRole(doc: TutorialToml, i: number): string {
  const p = doc.participants[i]!;
  return p.role ?? p.name ?? (doc.participants.length === 1 ? "agent" : `participant${i}`);
}

function fromTutorial(doc: TutorialToml): ScenarioAgent[] {
  const one = (a: TutorialAgentToml, isGreen: boolean, role: string): ScenarioAgent => {
    const url = new URL(a.endpoint ?? composeEndpoint(isGreen ? GREEN_SERVICE : role));
    const endpoint = url.href.endsWith("/") ? url.href : url.href + "/";
    return {
      name: role,
      isGreen,
      role,
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
      endpoint,
      cardUrl: endpoint + AGENT_CARD_PATH,
      command: a.cmd === undefined ? undefined : shellCommand(a.cmd),
      env: a.env ?? {},
      agentbeatsId: a.agentbeats_id,
    };
  };
  return [
    one(doc.green_agent, true, "green"),
    ...doc.participants.map((p, i) => one(p, false, participantRole(doc, i))),
  ];
}

/** Cross-field rules the schema cannot say; problems as "file:line: key: problem". */
function semanticProblems(
  file: string,
  source: string,
  layout: ScenarioLayout,
  doc: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  if (layout === "smi") {
    const agents = (doc as unknown as SmiToml).agents;
    const greens = agents.filter((a) => a.is_green).length;
    if (greens !== 1)
      problems.push(
        `${file}:${lineOfPath(source, ["agents"])}: agents: exactly one agent must have is_green = true (found ${greens})`,
      );
    const seen = new Map<number, number>();
    agents.forEach((a, i) => {
      const prev = seen.get(a.agent_port);
      if (prev !== undefined)
        problems.push(
          `${file}:${lineOfPath(source, ["agents", String(i), "agent_port"])}: agents[${i}].agent_port: port ${a.agent_port} already used by agents[${prev}]`,
        );
      seen.set(a.agent_port, i);
    });
    agents.forEach((a, i) => {
      const card = isAbsolute(a.card) ? a.card : join(dirname(file), a.card);
      if (!existsSync(card))
        problems.push(
          `${file}:${lineOfPath(source, ["agents", String(i), "card"])}: agents[${i}].card: file ${card} not found`,
        );
    });
    const roles = new Set<string>();
    agents.forEach((a, i) => {
      if (a.is_green) return;
      const role = a.role ?? "agent";
      if (roles.has(role))
        problems.push(
          `${file}:${lineOfPath(source, ["agents", String(i)])}: agents[${i}].role: role "${role}" used twice`,
        );
      roles.add(role);
    });
  } else {
    const doc2 = doc as unknown as TutorialToml;
    const roles = new Map<string, number>();
    doc2.participants.forEach((_, i) => {
      const role = participantRole(doc2, i);
      const prev = roles.get(role);
      if (prev !== undefined)
        problems.push(
          `${file}:${lineOfPath(source, ["participants", String(i)])}: participants[${i}]: role "${role}" already used by participants[${prev}]`,
        );
      // The leaderboard record names the green agent `green` beside the participants' roles.
      if (role === "green")
        problems.push(
          `${file}:${lineOfPath(source, ["participants", String(i)])}: participants[${i}]: role "green" is the green agent's`,
        );
      roles.set(role, i);
    });
  }
  return problems;
}

/**
 * Read, parse and validate a scenario. `dirOrFile` is a scenario directory
 * (its scenario.toml) or a .toml file. Throws {@link ScenarioConfigError}.
 */
export function loadScenario(dirOrFile: string, cwd = process.cwd()): Scenario {
  const file = scenarioFileOf(dirOrFile, cwd);
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (err) {
    throw new ScenarioConfigError([`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
  }
  return parseScenario(source, file);
}

/** {@link loadScenario} over source text already read (`file` names it in messages and anchors relative paths). */
export function parseScenario(source: string, file: string): Scenario {
  let doc: Record<string, unknown>;
  try {
    doc = parse(source);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split("\n")[0] ?? err.message;
      throw new ScenarioConfigError([
        `${file}:${err.line}: ${first.replace(/^Invalid TOML document: /, "TOML syntax: ")}`,
      ]);
    }
    throw err;
  }
  const layout = detectLayout(doc);
  const validate = getValidator(SCHEMA_OF[layout]);
  if (!validate(doc)) throw new ScenarioConfigError(describeErrors(file, source, validate.errors ?? []));
  const semantic = semanticProblems(file, source, layout, doc);
  if (semantic.length > 0) throw new ScenarioConfigError(semantic);

  const rawConfig = (doc["config"] as Record<string, unknown> | undefined) ?? undefined;
  let config: AssessmentConfig = DEFAULT_SMOKE_CONFIG;
  if (rawConfig !== undefined) {
    // Checked here for line-numbered messages; kept as written: the green agent resolves it (defaults, run id).
    const errors = checkConfig(rawConfig);
    if (errors.length > 0) throw new ScenarioConfigError(describeErrors(file, source, errors, ["config"]));
    config = rawConfig as unknown as AssessmentConfig;
  }
  const dir = resolve(file, "..");
  const agents = layout === "smi" ? fromSmi(doc as unknown as SmiToml) : fromTutorial(doc as unknown as TutorialToml);
  const name =
    layout === "smi" ? (doc as unknown as SmiToml).scenario.name : (dir.split("/").filter(Boolean).pop() ?? "scenario");
  return { name, dir, file, layout, agents, config };
}
