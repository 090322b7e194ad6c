/**
 * What the participant is shown for one instance: the problem statement and
 * repository context (the file list and the files most related to the issue),
 * with instructions to answer with a unified diff — the shape of SWE-bench's
 * "style-3" retrieval prompts, with a simple term-overlap retrieval instead of
 * BM25 and never the gold patch's file list (that would leak the answer).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ParticipantRequest } from "../../a2a/shared/participant.js";
import type { SwebenchInstance } from "./instance.js";
import { gitInOk, type Tree } from "./git.js";

/** Budget for file contents in the prompt, characters (≈ 12k tokens). */
export const CONTEXT_CHAR_BUDGET = 48_000;
/** At most this many file names listed. */
export const MAX_LISTED_FILES = 400;

export interface RepoContext {
  files: string[];
  relevant: Array<{ path: string; content: string }>;
}

const SOURCE_EXT = /\.(py|pyi|js|ts|c|h|cc|cpp|go|rs|java|rb|cfg|toml|ini|txt|md|rst)$/;

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z_][a-z0-9_]{2,}/g) ?? []);
}

/** Score a file: paths named in the issue first, then identifier overlap with the issue text. */
export function rankFiles(
  problem: string,
  files: Array<{ path: string; content: string }>,
): Array<{ path: string; content: string; score: number }> {
  const issueWords = words(problem);
  return files
    .map((f) => {
      const base = f.path.split("/").pop() ?? f.path;
      const named = problem.includes(f.path) || problem.includes(base) ? 1000 : 0;
      let overlap = 0;
      for (const w of words(f.content)) if (issueWords.has(w)) overlap++;
      return { ...f, score: named + overlap };
    })
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
}

/**
 * Collect the file list and the most relevant files of the tree (tests
 * excluded from contents). Only regular files are read: a tracked symlink
 * (mode 120000) could point anywhere on the host.
 */
export async function repoContext(tree: Tree, problem: string, budget = CONTEXT_CHAR_BUDGET): Promise<RepoContext> {
  const entries = (await gitInOk(tree, ["ls-files", "-s", "-z"]))
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      return { mode: line.slice(0, line.indexOf(" ")), path: line.slice(tab + 1) };
    });
  const files = entries.map((e) => e.path);
  const candidates: Array<{ path: string; content: string }> = [];
  for (const { mode, path } of entries) {
    if (!mode.startsWith("100")) continue;
    if (!SOURCE_EXT.test(path) || /(^|\/)tests?\//.test(path) || /(^|\/)test_[^/]*$/.test(path)) continue;
    const content = await readFile(join(tree.path, path), "utf8").catch(() => null);
    if (content !== null && content.length <= budget) candidates.push({ path, content });
  }
  const relevant: RepoContext["relevant"] = [];
  let used = 0;
  for (const f of rankFiles(problem, candidates)) {
    if (f.score === 0 || used + f.content.length > budget) continue;
    relevant.push({ path: f.path, content: f.content });
    used += f.content.length;
  }
  return { files, relevant };
}

/** The A2A request for one instance. `data` carries ids only (no patches). */
export function buildRequest(inst: SwebenchInstance, ctx: RepoContext): ParticipantRequest {
  const listed = ctx.files.slice(0, MAX_LISTED_FILES);
  const more = ctx.files.length - listed.length;
  const parts = [
    `You will be given an issue of the repository ${inst.repo} and part of its code base.`,
    "Write a patch that resolves the issue. Answer with a single unified diff (as produced by `git diff`,",
    "paths prefixed a/ and b/, applicable with `git apply` at the repository root) in a ```diff fenced block.",
    "",
    "<issue>",
    inst.problem_statement.trim(),
    "</issue>",
  ];
  if (inst.hints_text && inst.hints_text.trim() !== "") parts.push("", "<hints>", inst.hints_text.trim(), "</hints>");
  parts.push(
    "",
    "<repository_files>",
    ...listed,
    ...(more > 0 ? [`... and ${more} more`] : []),
    "</repository_files>",
    "",
    "<code>",
  );
  for (const f of ctx.relevant) parts.push(`[start of ${f.path}]`, f.content.replace(/\n$/, ""), `[end of ${f.path}]`);
  parts.push("</code>");
  return {
    text: parts.join("\n"),
    data: {
      benchmark: "swebench",
      instance_id: inst.instance_id,
      repo: inst.repo,
      base_commit: inst.base_commit,
      response_format: "unified_diff",
    },
  };
}
