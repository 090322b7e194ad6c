/**
 * Agent cards from TOML. The TOML uses smi_bench's AgentCard field names
 * (camelCase, v0.3 style: `url`, `defaultInputModes`, `[capabilities]`,
 * `[[skills]]`); this module turns it into the SDK's 1.0 AgentCard. Both
 * bindings the agent serves are listed on the one base URL (express-app.ts):
 * JSONRPC first (the preferred transport: the 0.3 card's `preferredTransport`
 * is the first interface's binding), then HTTP+JSON, each for 1.0 and again for
 * 0.3, which `legacyCompat` needs to answer header-less (0.3) requests. When the
 * agent also serves gRPC (its own port: grpc-server.ts), GRPC follows them, at
 * `host:port` (the target form gRPC clients dial), the host being the base URL's.
 */
import { readFile } from "node:fs/promises";
import { parse as parseToml } from "smol-toml";
import type { AgentCard, AgentInterface, AgentSkill } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { InputFileError, ValidationError, errorMessage } from "../../util/errors.js";

/** Where the agent is reachable; overrides the TOML's `url`. */
export interface CardAddress {
  /** Bind host (`--host`); used in the URL unless it is a wildcard address. */
  host?: string;
  /** Bind port (`--port`). */
  port?: number;
  /** Public URL to advertise (`--card-url`); wins over host/port. */
  cardUrl?: string;
  /** Bound gRPC port (`--grpc-port`); the GRPC interface is listed only when set. */
  grpcPort?: number;
}

function str(obj: Record<string, unknown>, key: string, problems: string[], fallback?: string): string {
  const v = obj[key];
  if (typeof v === "string") return v;
  if (v === undefined && fallback !== undefined) return fallback;
  problems.push(`"${key}" must be a string`);
  return "";
}

function strList(obj: Record<string, unknown>, key: string, problems: string[], fallback: string[]): string[] {
  const v = obj[key];
  if (v === undefined) return fallback;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v;
  problems.push(`"${key}" must be an array of strings`);
  return fallback;
}

/** The URL to advertise: --card-url, else the TOML url with host/port replaced. */
export function resolveCardUrl(tomlUrl: string, address: CardAddress): string {
  if (address.cardUrl) return address.cardUrl;
  const url = new URL(tomlUrl);
  // A wildcard bind address is not reachable as a URL; keep the TOML's host.
  if (address.host && address.host !== "0.0.0.0" && address.host !== "::") {
    url.hostname = address.host.includes(":") ? `[${address.host}]` : address.host;
  }
  if (address.port !== undefined) url.port = String(address.port);
  return url.toString();
}

/** Protocol bindings served on an agent's base URL, preferred first. */
export const PROTOCOL_BINDINGS = ["JSONRPC", "HTTP+JSON"] as const;

/** The binding name of gRPC in a card's interfaces (A2A 1.0 `protocolBinding`). */
export const GRPC_BINDING = "GRPC";

/** The gRPC target of an agent whose base URL is `url`: its host, the gRPC port. */
export function grpcInterfaceUrl(url: string, grpcPort: number): string {
  return `${new URL(url).hostname}:${grpcPort}`;
}

/**
 * The card's interfaces: every binding at `url` for 1.0 (gRPC at `grpcUrl` when given), then the
 * same for 0.3.
 */
export function agentInterfaces(url: string, grpcUrl?: string): AgentInterface[] {
  const http = PROTOCOL_BINDINGS.map((protocolBinding) => ({
    url,
    protocolBinding,
    tenant: "",
    protocolVersion: "1.0",
  }));
  const grpc = grpcUrl ? [{ url: grpcUrl, protocolBinding: GRPC_BINDING, tenant: "", protocolVersion: "1.0" }] : [];
  return duplicateInterfacesForLegacy([...http, ...grpc], [...PROTOCOL_BINDINGS, ...(grpcUrl ? [GRPC_BINDING] : [])]);
}

/** Build an AgentCard from parsed TOML; throws ValidationError listing every problem. */
export function cardFromToml(doc: Record<string, unknown>, address: CardAddress = {}): AgentCard {
  const problems: string[] = [];
  const name = str(doc, "name", problems);
  const description = str(doc, "description", problems, "");
  const tomlUrl = str(doc, "url", problems, "http://127.0.0.1/");
  const version = str(doc, "version", problems, "0.1.0");
  const caps = (doc["capabilities"] ?? {}) as Record<string, unknown>;
  const skillsRaw = doc["skills"] ?? [];
  const skills: AgentSkill[] = [];
  if (!Array.isArray(skillsRaw)) problems.push(`"skills" must be an array of tables`);
  else {
    for (const [i, s] of skillsRaw.entries()) {
      const sp: string[] = [];
      const skill = s as Record<string, unknown>;
      skills.push({
        id: str(skill, "id", sp),
        name: str(skill, "name", sp),
        description: str(skill, "description", sp, ""),
        tags: strList(skill, "tags", sp, []),
        examples: strList(skill, "examples", sp, []),
        inputModes: strList(skill, "inputModes", sp, []),
        outputModes: strList(skill, "outputModes", sp, []),
        securityRequirements: [],
      });
      problems.push(...sp.map((p) => `skills[${i}]: ${p}`));
    }
  }
  let url = tomlUrl;
  try {
    url = resolveCardUrl(tomlUrl, address);
  } catch (err) {
    problems.push(`"url" is not a valid URL: ${errorMessage(err)}`);
  }
  const defaultInputModes = strList(doc, "defaultInputModes", problems, ["application/json"]);
  const defaultOutputModes = strList(doc, "defaultOutputModes", problems, ["application/json"]);
  if (problems.length > 0) throw new ValidationError("agent card", problems);
  return {
    name,
    description,
    supportedInterfaces: agentInterfaces(
      url,
      address.grpcPort !== undefined ? grpcInterfaceUrl(url, address.grpcPort) : undefined,
    ),
    provider: undefined,
    version,
    capabilities: {
      streaming: caps["streaming"] !== false,
      pushNotifications: caps["pushNotifications"] === true,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes,
    defaultOutputModes,
    skills,
    signatures: [],
  };
}

/** Read a card TOML file and build the AgentCard with address overrides. */
export async function loadAgentCard(path: string, address: CardAddress = {}): Promise<AgentCard> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new InputFileError(path, `cannot read agent card: ${errorMessage(err)}`, { cause: err });
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (err) {
    throw new InputFileError(path, `invalid TOML: ${errorMessage(err)}`, { cause: err });
  }
  return cardFromToml(doc, address);
}

/** The advertised URL of a card (its first interface). */
export function cardUrl(card: AgentCard): string {
  return card.supportedInterfaces[0]?.url ?? "";
}
