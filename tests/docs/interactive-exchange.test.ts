/**
 * The example episodes the docs show are the protocol as the code speaks it: the README's one-line-per-TextPart
 * exchange and the turn-by-turn exchange of docs/interactive.md. Every message the green sends must pass the wire
 * schema (schemas/interactive_turn.schema.json), every participant reply must decode (src/interactive/decode.ts)
 * to the action it shows, and the turns must alternate green, participant, … from `task` to `final`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { decodeReply } from "../../src/interactive/decode.js";
import { turnMessageProblems } from "../../src/interactive/protocol.js";
import { packageRoot } from "../../src/util/package-root.js";
import { lines } from "../support/markdown.js";

/** The fenced blocks of `lang` under the `##`/`###` heading `heading` of `page`, in order. */
function blocksUnder(page: string, heading: string, langs: readonly string[]): string[] {
  const text = readFileSync(join(packageRoot, page), "utf8");
  const level = heading.split(" ")[0]!.length;
  let under = false;
  const out: string[] = [];
  for (const l of lines(text)) {
    if (!l.inFence) {
      const m = /^(#+) /.exec(l.text);
      if (m && m[1]!.length <= level) under = l.text === heading;
    }
    if (under && l.fence && langs.includes(l.fence.lang)) out.push(l.fence.body);
  }
  if (out.length === 0) throw new Error(`${page} has no ${langs.join("/")} block under "${heading}"`);
  return out;
}

const GREEN_KINDS = new Set(["task", "exec_result"]);

/** Check one episode's TextParts in order: green messages by the schema, replies by the decoder. */
function checkEpisode(parts: unknown[]): void {
  expect(parts.length).toBeGreaterThanOrEqual(3);
  expect((parts[0] as { kind: string }).kind).toBe("task");
  expect((parts.at(-1) as { kind: string }).kind).toBe("final");
  parts.forEach((part, i) => {
    const kind = (part as { kind: string }).kind;
    const fromGreen = i % 2 === 0;
    expect(GREEN_KINDS.has(kind), `part ${i} (${kind}) is on the wrong side`).toBe(fromGreen);
    if (fromGreen) {
      expect(turnMessageProblems(part), `part ${i}`).toEqual([]);
      return;
    }
    const action = decodeReply({ texts: [JSON.stringify(part)], data: [] });
    const p = part as { kind: string; command?: string; timeout?: number; output?: string };
    if (kind === "exec_request") {
      expect(action).toMatchObject({ type: "exec", command: p.command });
      if (p.timeout !== undefined) expect(action).toMatchObject({ timeoutS: p.timeout });
    } else {
      expect(action).toMatchObject({ type: "final", output: p.output });
    }
  });
}

describe("the documented interactive exchanges", () => {
  test("README: one TextPart a line, task to final", () => {
    const [block] = blocksUnder("README.md", "## Interactive assessments", ["jsonl"]);
    const parts = block!
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as unknown);
    checkEpisode(parts);
  });

  test("docs/interactive.md: the full exchange, the A2A envelope aside", () => {
    const parts = blocksUnder("docs/interactive.md", "### A full exchange", ["json"])
      .map((b) => JSON.parse(b) as Record<string, unknown>)
      // The envelope block shows the JSON-RPC request that carries turn 1; the rest are TextParts.
      .filter((v) => v["jsonrpc"] === undefined);
    checkEpisode(parts);
  });
});
