/**
 * Row 8b: synthetic git repositories of a chosen size, built in seconds with
 * `git fast-import` from deterministic pseudo-random Python-like text (nothing
 * downloaded, nothing committed): `files` files spread over directories of
 * ~50, then `commits` further commits that each rewrite `touchPerCommit`
 * files, so the object store holds a history as well as a tree. Stands in for
 * the SWE-bench repositories (django ~6k files, sympy ~1.5k, with long
 * histories) that row 8's three tiny embedded repos are not.
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";

const WORDS = (
  "def return self value result items index count name path data config option node parent child " +
  "token buffer stream error handler request response query field model view field cache state format parse " +
  "render update delete create select filter order group limit offset batch queue worker timeout retry"
).split(" ");

/** mulberry32: a tiny deterministic PRNG, so every build is byte-identical. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** ~`lines` lines of Python-looking text (≈ 45 bytes a line). */
function fileText(rand, lines) {
  const out = [];
  for (let i = 0; i < lines; i++) {
    const w = () => WORDS[Math.floor(rand() * WORDS.length)];
    out.push(
      i % 8 === 0
        ? `def ${w()}_${w()}(${w()}, ${w()}):`
        : `    ${w()}_${w()} = ${w()}(${w()}, ${Math.floor(rand() * 1000)})`,
    );
  }
  return out.join("\n") + "\n";
}

const pathOf = (i) => `pkg${Math.floor(i / 2500)}/sub${Math.floor(i / 50) % 50}/mod_${i}.py`;

/**
 * Build the repository in `dir` (a fresh `git init`, objects via fast-import,
 * branch `main`). Resolves { files, commits, baseCommit (the middle of the
 * history, like an instance's base_commit), packBytes }.
 */
export async function buildSyntheticRepo(
  dir,
  { files, commits = 300, touchPerCommit = 10, linesPerFile = 32, seed = 1 },
) {
  execFileSync("git", ["init", "--quiet", "--initial-branch=main", dir]);
  const rand = prng(seed);
  const child = spawn("git", ["-C", dir, "fast-import", "--quiet", "--done"], { stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s) => {
    stderr += s;
  });
  const exited = new Promise((resolve) => child.once("close", resolve));
  let chunk = "";
  const write = async (s) => {
    chunk += s;
    if (chunk.length < 1 << 20) return;
    const ok = child.stdin.write(chunk);
    chunk = "";
    if (!ok) await new Promise((r) => child.stdin.once("drain", r));
  };
  const data = (s) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  const commitHeader = (n) =>
    `commit refs/heads/main\nmark :${n + 1}\ncommitter bench <bench@example.invalid> ${1_700_000_000 + n * 3600} +0000\n${data(`synthetic commit ${n}`)}`;
  await write(commitHeader(0));
  for (let i = 0; i < files; i++) await write(`M 100644 inline ${pathOf(i)}\n${data(fileText(rand, linesPerFile))}`);
  for (let n = 1; n <= commits; n++) {
    await write(`${commitHeader(n)}from :${n}\n`);
    for (let j = 0; j < touchPerCommit; j++)
      await write(`M 100644 inline ${pathOf(Math.floor(rand() * files))}\n${data(fileText(rand, linesPerFile))}`);
  }
  await write("done\n");
  child.stdin.end(chunk);
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import failed (exit ${code}): ${stderr.slice(-500)}`);
  const baseCommit = execFileSync("git", ["-C", dir, "rev-parse", `main~${Math.floor(commits / 2)}`], {
    encoding: "utf8",
  }).trim();
  const sizeLine = execFileSync("git", ["-C", dir, "count-objects", "-v"], { encoding: "utf8" })
    .split("\n")
    .find((l) => l.startsWith("size-pack:"));
  return { files, commits: commits + 1, baseCommit, packBytes: Number(sizeLine?.split(":")[1] ?? 0) * 1024 };
}
