/**
 * Get the code out of a participant's free-form reply. Agents answer in many
 * shapes: a fenced block (tagged or not, sometimes unterminated), several
 * blocks, prose before/after, the whole function (possibly repeating the
 * prompt) or only its body (sometimes with the first line's indent lost).
 * The result is the `completion` that is appended to the prompt, as the
 * HumanEval harness does.
 */

/** How the completion relates to the prompt. */
export type CompletionKind = "full" | "body" | "none";

export interface ExtractedCode {
  /** Text to append to the prompt ("" when kind is "none"). */
  completion: string;
  kind: CompletionKind;
  /** Where the code came from: a fenced block or the raw reply text. */
  source: "fence" | "raw";
}

export interface ExtractOptions {
  /** Function the task asks for; a reply defining it counts as a full function. */
  entryPoint?: string | undefined;
  /** The prompt the participant saw; an echoed copy of it is dropped from the reply. */
  prompt?: string | undefined;
  /** Fence tags preferred, in order (default python, py, python3). */
  languages?: readonly string[];
}

const DEFAULT_LANGUAGES = ["python", "py", "python3"];
const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n([\s\S]*?)(?:^[ \t]*\1[ \t]*$|(?![\s\S]))/gm;
// Column-0 lines that are Python code, not prose.
const CODE_START =
  /^(?:def |async def |class |import |from |@|if |for |while |try:|with |return\b|raise |assert |[A-Za-z_][A-Za-z0-9_.]*\s*(?:=|\(|\[|\+=|-=))/;
// A prose line: starts with a word, no code punctuation, ends like a sentence or a lead-in.
const PROSE = /^(?:[A-Z*#>-]|\d+\.)[^=(){}[\]]*$/;

interface Block {
  lang: string;
  body: string;
}

/** Every fenced block in order (an unterminated last fence runs to the end). */
export function findFencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  for (const m of text.matchAll(FENCE)) {
    blocks.push({ lang: (m[2] ?? "").toLowerCase(), body: (m[3] ?? "").replace(/\n$/, "") });
  }
  return blocks;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * Whether `code` has a line `[indent][async ]def <entryPoint>(` (any name when
 * `entryPoint` is absent). A line scan, not a RegExp built per entry point: the
 * runner's profile showed compiling one pattern per task costing more than the
 * scan it served.
 */
function definesEntry(code: string, entryPoint: string | undefined): boolean {
  for (const raw of code.split("\n")) {
    let line = raw.replace(/^[ \t]+/, "");
    if (line.startsWith("async")) {
      const rest = line.slice(5);
      if (!/^\s/.test(rest)) continue;
      line = rest.trimStart();
    }
    if (!line.startsWith("def") || !/^\s/.test(line.slice(3))) continue;
    line = line.slice(3).trimStart();
    let name: string;
    if (entryPoint) {
      if (!line.startsWith(entryPoint)) continue;
      name = entryPoint;
    } else {
      const m = IDENT.exec(line);
      if (!m) continue;
      name = m[0];
    }
    if (line.slice(name.length).trimStart().startsWith("(")) return true;
  }
  return false;
}

function pickBlock(blocks: Block[], opts: ExtractOptions): Block | undefined {
  const langs = opts.languages ?? DEFAULT_LANGUAGES;
  const tagged = blocks.filter((b) => langs.includes(b.lang));
  const untagged = blocks.filter((b) => b.lang === "");
  for (const group of [tagged, untagged, blocks]) {
    const withDef = group.find((b) => definesEntry(b.body, opts.entryPoint));
    if (withDef) return withDef;
  }
  return tagged[0] ?? untagged[0] ?? blocks[0];
}

/** Drop prose lines before and after the code of an unfenced reply. */
function stripProse(text: string): string {
  const lines = text.split("\n");
  const isProse = (l: string): boolean =>
    l.trim() !== "" && !/^\s/.test(l) && !CODE_START.test(l) && PROSE.test(l.trim());
  let start = 0;
  while (start < lines.length && (isProse(lines[start] ?? "") || (lines[start] ?? "").trim() === "")) start++;
  let end = lines.length;
  while (end > start && (isProse(lines[end - 1] ?? "") || (lines[end - 1] ?? "").trim() === "")) end--;
  return lines.slice(start, end).join("\n");
}

function indentOf(line: string): number {
  return (/^[ \t]*/.exec(line)?.[0] ?? "").replace(/\t/g, "    ").length;
}

/** Remove the common leading indentation (blank lines ignored). */
export function dedent(code: string): string {
  const lines = code.replace(/\t/g, "    ").split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map(indentOf);
  const min = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l) => (l.trim() === "" ? "" : l.slice(min))).join("\n");
}

/**
 * Make a function body fit under the prompt's `def` (4 spaces). An already
 * indented body is kept byte for byte; a body at column 0 is indented; a body
 * whose first line alone lost its indent gets the indent of the others.
 */
export function fitBody(body: string): string {
  const lines = body.split("\n");
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first < 0) return "";
  const firstLine = lines[first] ?? "";
  if (indentOf(firstLine) > 0) return lines.slice(first).join("\n");
  const rest = lines.slice(first + 1).filter((l) => l.trim() !== "");
  const restMin = rest.length > 0 ? Math.min(...rest.map(indentOf)) : 0;
  if (restMin > 0 && !firstLine.trimEnd().endsWith(":")) {
    // Only the first line was stripped (a common copy artefact): restore it to the block's level.
    return [" ".repeat(restMin) + firstLine, ...lines.slice(first + 1)].join("\n");
  }
  return lines
    .slice(first)
    .map((l) => (l.trim() === "" ? "" : "    " + l))
    .join("\n");
}

/** Extract the completion from a reply; see the module note for the shapes handled. */
export function extractCode(reply: string, opts: ExtractOptions = {}): ExtractedCode {
  const text = reply.replace(/\r\n?/g, "\n");
  const blocks = findFencedBlocks(text);
  const block = pickBlock(blocks, opts);
  const source: ExtractedCode["source"] = block ? "fence" : "raw";
  let code = block ? block.body : stripProse(text);
  if (code.trim() === "") return { completion: "", kind: "none", source };

  // An echoed prompt: keep only what follows it.
  const prompt = opts.prompt?.replace(/\r\n?/g, "\n");
  if (prompt && prompt.trim() !== "") {
    const at = code.indexOf(prompt.trimEnd());
    if (at >= 0 && code.slice(0, at).trim() === "")
      code = code.slice(at + prompt.trimEnd().length).replace(/^[ \t]*\n/, "");
    if (code.trim() === "") return { completion: "", kind: "none", source };
  }

  if (definesEntry(code, opts.entryPoint)) {
    // A whole definition: appended after the prompt it redefines the stub (the later `def` wins in Python).
    return { completion: "\n" + dedent(code).trimEnd() + "\n", kind: "full", source };
  }
  return { completion: fitBody(code).trimEnd() + "\n", kind: "body", source };
}
