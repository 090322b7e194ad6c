/**
 * The file names a diff names, and the guard that keeps a diff out of git's
 * own files. `git apply` refuses a path with a `.git` component, but the
 * `patch --fuzz` fallback (SWE-bench's last strategy) writes wherever the
 * headers say: a model patch could rewrite a tree's `.git` pointer or a
 * clone's `.git/config`. Such a patch is refused before any strategy runs.
 */

/** Undo git's C-style quoting of a path (`"a/\303\244 b"`); unquoted input is returned as is. */
export function unquotePath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (next in simple) {
      bytes.push(simple[next]!);
      i += 1;
    } else {
      bytes.push(92);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The name in a `---`/`+++`/`***` header: up to a tab (a timestamp may follow). */
function headerName(rest: string): string {
  const name = rest.startsWith('"') ? rest.slice(0, rest.lastIndexOf('"') + 1) || rest : rest.split("\t")[0]!;
  return unquotePath(name.trim());
}

/**
 * Every path a unified, context or git diff names in its headers (not in hunk
 * bodies): `diff --git`, `---`/`+++` pairs, `***`/`---` pairs, `Index:`,
 * `rename`/`copy` from/to.
 */
export function patchPaths(patch: string): string[] {
  const lines = patch.split("\n");
  const paths: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    const next = (lines[i + 1] ?? "").replace(/\r$/, "");
    let m: RegExpExecArray | null;
    if ((m = /^diff --git (.+)$/.exec(line))) {
      // "a/x b/y" (either may be quoted); both names matter.
      const parts = m[1]!.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
      for (const p of parts) paths.push(unquotePath(p));
    } else if ((m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line)) || (m = /^Index: (.+)$/.exec(line))) {
      paths.push(unquotePath(m[1]!.trim()));
    } else if (line.startsWith("--- ") && next.startsWith("+++ ")) {
      paths.push(headerName(line.slice(4)), headerName(next.slice(4)));
      i++;
    } else if (line.startsWith("*** ") && next.startsWith("--- ")) {
      paths.push(headerName(line.slice(4)), headerName(next.slice(4)));
      i++;
    }
  }
  return paths;
}

/** True if any component of `path` is `.git` (any case: git refuses `.GIT` too, for case-insensitive file systems). */
export function touchesGitDir(path: string): boolean {
  return path.split(/[/\\]/).some((part) => part.toLowerCase() === ".git");
}

/** The first path in `patch` that reaches into a `.git`, or null if none does. */
export function gitDirPathIn(patch: string): string | null {
  return patchPaths(patch).find(touchesGitDir) ?? null;
}
