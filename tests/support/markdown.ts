/**
 * The little Markdown the docs tests need, read the way GitHub renders it: fenced blocks (CommonMark's rules for
 * opening and closing fences), heading anchors (GitHub's slugs, duplicates numbered), relative links outside
 * code, and the commands of a shell block as argument vectors.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** One fenced code block: its info string's first word (`""` when none), its text, its opening line (1-based). */
export interface FencedBlock {
  lang: string;
  body: string;
  line: number;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/**
 * Walk a document's lines, telling for each whether it is prose (`inFence` false) or part of a fenced block
 * (its fence lines included). A backtick fence whose info string holds a backtick is no fence (CommonMark 4.5),
 * e.g. a prose line that begins with "```diff/```patch".
 */
export function* lines(text: string): Generator<{ text: string; line: number; inFence: boolean; fence?: FencedBlock }> {
  let open: { mark: string; block: FencedBlock; body: string[] } | undefined;
  const all = text.split("\n");
  for (let i = 0; i < all.length; i++) {
    const ln = all[i]!;
    const m = FENCE.exec(ln);
    if (open === undefined) {
      if (m && !(m[2]!.startsWith("`") && m[3]!.includes("`"))) {
        open = { mark: m[2]!, block: { lang: m[3]!.trim().split(/\s+/)[0] ?? "", body: "", line: i + 1 }, body: [] };
        yield { text: ln, line: i + 1, inFence: true };
        continue;
      }
      yield { text: ln, line: i + 1, inFence: false };
      continue;
    }
    if (m && m[2]![0] === open.mark[0] && m[2]!.length >= open.mark.length && m[3]!.trim() === "") {
      open.block.body = open.body.join("\n");
      yield { text: ln, line: i + 1, inFence: true, fence: open.block };
      open = undefined;
      continue;
    }
    open.body.push(ln);
    yield { text: ln, line: i + 1, inFence: true };
  }
  if (open !== undefined) throw new Error(`unclosed code fence opened at line ${open.block.line}`);
}

/** Every fenced block of a document, in order. */
export function fencedBlocks(text: string): FencedBlock[] {
  const out: FencedBlock[] = [];
  for (const l of lines(text)) if (l.fence) out.push(l.fence);
  return out;
}

/** GitHub's heading slug: lower case, punctuation other than `-` and `_` dropped, each space a `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a document's headings (ATX headings outside fences), a repeated slug numbered `-1`, `-2`, … */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const l of lines(text)) {
    if (l.inFence) continue;
    const h = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(l.text);
    if (!h) continue;
    const base = slug(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** One link of a document: its target as written and its line. */
export interface Link {
  target: string;
  line: number;
}

/** Links `[text](target)` in prose (not in fenced blocks or inline code) whose target is not a URL with a scheme. */
export function relativeLinks(text: string): Link[] {
  const out: Link[] = [];
  for (const l of lines(text)) {
    if (l.inFence) continue;
    const prose = l.text.replace(/(`+)(?:(?!\1).)*?\1/g, "");
    for (const m of prose.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ target, line: l.line });
    }
  }
  return out;
}

/**
 * The words of one shell command line, as the shell would split them: quotes removed, backslash escapes
 * applied, `$VAR`/`${…}`/`$(…)` left as written. Control operators (`&&`, `||`, `|`, `;`, `&`) are their own
 * words so that a caller can split a line into commands; a `#` at the start of a word begins a comment.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = "";
  let has = false;
  const push = (): void => {
    if (has) words.push(cur);
    cur = "";
    has = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      cur += line.slice(i + 1, end);
      has = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length) j++;
        cur += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`);
      has = true;
      i = j;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (c === "$" && (line[i + 1] === "(" || line[i + 1] === "{")) {
      // Keep a substitution whole, nested brackets included.
      const close = line[i + 1] === "(" ? ")" : "}";
      let depth = 0;
      let j = i + 1;
      for (; j < line.length; j++) {
        if (line[j] === line[i + 1]) depth++;
        else if (line[j] === close && --depth === 0) break;
      }
      cur += line.slice(i, j + 1);
      has = true;
      i = j;
    } else if (c === "\n") {
      push();
      words.push(";");
    } else if (/\s/.test(c)) {
      push();
    } else if (c === "#" && !has) {
      const eol = line.indexOf("\n", i);
      if (eol < 0) break;
      i = eol - 1;
    } else if ("|&;".includes(c)) {
      push();
      const two = line.slice(i, i + 2);
      words.push(two === "&&" || two === "||" ? two : c);
      if (two === "&&" || two === "||") i++;
    } else {
      cur += c;
      has = true;
    }
  }
  push();
  return words;
}

/** One simple command of a shell block: its words after leading `NAME=value` assignments, and its line. */
export interface ShellCommand {
  argv: string[];
  line: number;
  /** The source line(s) it came from, continuations joined. */
  source: string;
}

/**
 * The simple commands of a shell block: continuation lines and multi-line quoted strings joined, split at
 * control operators and newlines.
 */
export function shellCommands(block: FencedBlock): ShellCommand[] {
  const out: ShellCommand[] = [];
  const raw = block.body.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const first = i;
    let text = raw[i]!;
    let words: string[] | undefined;
    for (;;) {
      if (text.endsWith("\\") && i + 1 < raw.length) {
        text = text.slice(0, -1) + " " + raw[++i]!;
        continue;
      }
      try {
        words = shellWords(text);
        break;
      } catch (err) {
        // A quoted string that goes on over the next lines (a JSON body): read on.
        if (i + 1 >= raw.length) throw err;
        text += "\n" + raw[++i]!;
      }
    }
    let cur: string[] = [];
    const flush = (): void => {
      while (cur.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(cur[0]!)) cur.shift();
      if (cur.length > 0) out.push({ argv: cur, line: block.line + 1 + first, source: text.trim() });
      cur = [];
    };
    for (const w of words) {
      if (["&&", "||", "|", ";", "&"].includes(w)) flush();
      else cur.push(w);
    }
    flush();
  }
  return out;
}

/** README.md and every Markdown file under docs/, as paths relative to `root`. */
export function docFiles(root: string): string[] {
  const out = ["README.md"];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) out.push(relative(root, p));
    }
  };
  walk(join(root, "docs"));
  return out.sort();
}
