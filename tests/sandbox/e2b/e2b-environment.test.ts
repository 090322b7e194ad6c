/**
 * The Environment contract on the e2b backend, with the real SDK against the
 * local stand-in (stand-in-server.ts): E2B's cloud is not reachable from the
 * test machine, so these check our use of the SDK and the stand-in's model of
 * envd, never E2B itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.js";
import { startE2bStandIn, type StandInServer } from "../../../src/sandbox/e2b/stand-in-server.js";
import { environmentsOf, type Environment, type EnvironmentSpec } from "../../../src/sandbox/environment.js";
import { openE2bEnvironment, type E2bEnvironmentContext } from "../../../src/sandbox/e2b/e2b-environment.js";
import { loadE2bSdk } from "../../../src/sandbox/e2b/load-sdk.js";
import { silentLogger } from "../../../src/util/logger.js";

const HOME = "/home/user";

describe("e2b environments (real SDK against the local stand-in)", () => {
  let executor: Sandbox;
  let standIn: StandInServer;
  let e2b: Sandbox;
  let ctx: E2bEnvironmentContext;
  const opened: Environment[] = [];
  const spec = (o: Partial<EnvironmentSpec> = {}): EnvironmentSpec => ({ image: "swe-img", owner: "run-1", ...o });
  const open = async (o: Partial<EnvironmentSpec> = {}): Promise<Environment> => {
    const env = await environmentsOf(e2b, "test").openEnvironment(spec(o));
    opened.push(env);
    return env;
  };
  const openWith = async (extra: Partial<E2bEnvironmentContext>, o: Partial<EnvironmentSpec> = {}) => {
    const env = await openE2bEnvironment(spec(o), { ...ctx, ...extra });
    opened.push(env);
    return env;
  };
  const sh = (env: Environment, script: string, timeoutMs = 20_000) => env.exec(["bash", "-c", script], { timeoutMs });

  beforeAll(async () => {
    // The stand-in serves environments on a bwrap executor only (what keeps two of them apart).
    executor = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      backendOptions: { forceIsolation: "bwrap" },
    });
    standIn = await startE2bStandIn({ executor, apiKey: "test-key" });
    const connection = { apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url };
    e2b = await createSandbox({ backend: "e2b", logger: silentLogger(), backendOptions: connection });
    ctx = { sdk: (await loadE2bSdk()).Sandbox, connection, logger: silentLogger() };
  });
  afterAll(async () => {
    await Promise.all(opened.map((e) => e.close()));
    await e2b?.close();
    await standIn?.close();
    await executor?.close();
  });

  test("the backend declares environments; the create request has internet off, the lifetime, the owner", async () => {
    expect(e2b.capabilities.has("environments")).toBe(true);
    const env = await open({ lifetimeMs: 120_000 });
    expect(standIn.created.get(env.id)).toMatchObject({
      templateID: "swe-img",
      timeout: 120,
      allow_internet_access: false,
      metadata: { "a2a-bench-owner": "run-1" },
    });
    const mapped = await openWith({ templates: { "swe-img": "swe-img-e2b" } });
    expect(standIn.created.get(mapped.id)?.templateID).toBe("swe-img-e2b");
  });

  test("spec files are in place before the first command; state persists across commands", async () => {
    const env = await open({ files: { dir: `${HOME}/task`, entries: { "a.txt": "alpha\n", "b sh": "$(id)\n" } } });
    const first = await sh(env, "pwd; cat task/a.txt; cat 'task/b sh'; echo made > state.txt");
    expect(first).toMatchObject({ exitCode: 0, timedOut: false, isCanceled: false });
    expect(first.output).toBe(`${HOME}\nalpha\n$(id)\n`);
    const second = await sh(env, "cat state.txt; echo err >&2; exit 7");
    expect(second).toMatchObject({ output: "made\nerr\n", exitCode: 7 });
    expect(await env.readFile("state.txt")).toBe("made\n");
    expect(await env.readFile(`${HOME}/task/a.txt`)).toBe("alpha\n");
  });

  test("argv words and writeFile contents with shell metacharacters are never interpreted", async () => {
    const env = await open();
    const words = ["$(touch pwned1)", "`touch pwned2`", "a'b\"c", "; touch pwned3", "*", "\n", "$HOME", ""];
    const r = await env.exec(["printf", "[%s]", ...words], { timeoutMs: 20_000 });
    expect(r).toMatchObject({ exitCode: 0, output: words.map((w) => `[${w}]`).join("") });
    const content = "#!/bin/sh\n$(touch pwned4) `touch pwned5` '\"; touch pwned6 & \\\n\0x ünï\n";
    const name = "we ird'$(touch pwned7).txt";
    await env.writeFile(name, content);
    expect(await env.readFile(name)).toBe(content);
    const ls = await sh(env, "ls -A");
    expect(ls.output).not.toMatch(/^pwned\d$/m);
    expect(ls.output).toContain(name);
    // A NUL cannot travel in an argument: refused, the environment lives on.
    expect((await env.exec(["echo", "a\0b"], { timeoutMs: 5000 })).infraError).toMatch(/NUL/);
    expect((await sh(env, "echo alive")).output).toBe("alive\n");
  });

  test("a command's timeout ends the environment: the E2B sandbox is killed, later calls report infraError", async () => {
    const env = await open();
    await sh(env, "echo before > f");
    const tree = standIn.treeOf(env.id);
    expect(tree).toBeDefined();
    const t0 = Date.now();
    const r = await env.exec(["bash", "-c", "echo started; sleep 60"], { timeoutMs: 1500 });
    expect(r).toMatchObject({ exitCode: null, timedOut: true, isCanceled: false });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(standIn.live.has(env.id)).toBe(false);
    expect(standIn.treeOf(env.id)).toBeUndefined();
    const after = await sh(env, "cat f");
    expect(after.infraError).toMatch(/ended after a command's timeout/);
    expect(after.exitCode).toBeNull();
    await expect(env.readFile("f")).rejects.toMatchObject({ code: "E_SANDBOX_CLOSED" });
    await expect(env.writeFile("g", "x")).rejects.toMatchObject({ code: "E_SANDBOX_CLOSED" });
    // The command's own doing, not the backend's.
    expect(await env.backendProblem()).toBeNull();
  });

  test("an abort ends the environment the same way (isCanceled), promptly", async () => {
    const env = await open();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 500);
    const t0 = Date.now();
    const r = await env.exec(["sleep", "60"], { timeoutMs: 60_000, signal: ac.signal });
    expect(r).toMatchObject({ exitCode: null, timedOut: false, isCanceled: true });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(standIn.live.has(env.id)).toBe(false);
    expect((await sh(env, "true")).infraError).toMatch(/cancellation/);
    // An already aborted signal runs nothing.
    const env2 = await open();
    const starts = standIn.counts["POST /process.Process/Start"];
    const r2 = await env2.exec(["touch", "x"], { timeoutMs: 5000, signal: AbortSignal.abort() });
    expect(r2).toMatchObject({ isCanceled: true, exitCode: null });
    expect(standIn.live.has(env2.id)).toBe(false);
    expect(standIn.counts["POST /process.Process/Start"]).toBe(starts);
  });

  test("close() is idempotent, kills the E2B sandbox once, and its tree is gone", async () => {
    const env = await open();
    await sh(env, "echo x > y");
    const tree = standIn.treeOf(env.id)!;
    const deletes = standIn.counts["DELETE /sandboxes/{id}"] ?? 0;
    await Promise.all([env.close(), env.close()]);
    await env.close();
    expect(standIn.counts["DELETE /sandboxes/{id}"]).toBe(deletes + 1);
    expect(standIn.live.has(env.id)).toBe(false);
    await expect(readFile(`${tree}/y`)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await sh(env, "true")).infraError).toMatch(/closed/);
  });

  test("the sandbox's own lifetime is the backstop: it ends without us, and backendProblem says so", async () => {
    const env = await open({ lifetimeMs: 2000 });
    expect(standIn.created.get(env.id)?.timeout).toBe(2);
    // Asked of E2B's API: a live sandbox means the backend answers.
    expect(await env.backendProblem()).toBeNull();
    await new Promise((r) => setTimeout(r, 3000));
    expect(standIn.live.has(env.id)).toBe(false);
    const r = await sh(env, "true");
    expect(r.infraError).toMatch(/e2b command failed/);
    expect(await env.backendProblem()).toMatch(/is gone \(killed, or its lifetime of 2 s ran out\)/);
  });

  test("output: the tail is kept; a command printing beyond what the backend carries ends the environment", async () => {
    const env = await open();
    const r = await env.exec(["bash", "-c", "head -c 3000 /dev/zero | tr '\\0' a; echo END"], {
      timeoutMs: 20_000,
      maxOutputBytes: 1000,
    });
    expect(r.exitCode).toBe(0);
    expect(r.output).toHaveLength(1000);
    expect(r.output.endsWith("aEND\n")).toBe(true);
    const flood = await env.exec(["bash", "-c", "head -c 100000 /dev/zero | tr '\\0' b"], {
      timeoutMs: 20_000,
      maxOutputBytes: 1000,
    });
    expect(flood.exitCode).toBeNull();
    expect(Buffer.byteLength(flood.output)).toBeLessThanOrEqual(1000);
    // The participant's doing: a broken limit, never our failure (which would void its item).
    expect(flood.limitExceeded).toMatch(/printed more than 4000 bytes/);
    expect(flood.infraError).toBeUndefined();
    expect(standIn.live.has(env.id)).toBe(false);
    const later = await sh(env, "true");
    expect(later.limitExceeded).toMatch(/printed more than 4000 bytes/);
    expect(later.infraError).toBeUndefined();
    expect(await env.limitProblem?.()).toMatch(/printed more than 4000 bytes/);
  });

  test("readFile is bounded: a large file, /dev/zero and a FIFO fail in time; the environment lives on", async () => {
    const env = await openWith({ readFileMaxBytes: 64 * 1024, readFileTimeoutMs: 3000 });
    await sh(env, "head -c 200000 /dev/zero > big; mkfifo fifo; head -c 1000 /dev/zero > small");
    expect(await env.readFile("small")).toHaveLength(1000);
    await expect(env.readFile("big")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP", message: /larger than 65536/ });
    const t0 = Date.now();
    await expect(env.readFile("/dev/zero")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
    await expect(env.readFile("fifo")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP", message: /no end within 3 s/ });
    expect(Date.now() - t0).toBeLessThan(15_000);
    await expect(env.readFile("missing")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
    expect((await sh(env, "echo alive")).output).toBe("alive\n");
  });

  test("two environments are isolated: neither sees, reads or links to the other's files", async () => {
    const a = await open();
    const b = await open();
    const marker = `a2a-secret-${process.pid}-${Date.now()}`;
    await a.writeFile("secret.txt", marker);
    const treeA = standIn.treeOf(a.id)!;
    // By name over the whole view, by content where files can be written or mounted.
    const search = [
      "timeout 60 find / \\( -path /proc -o -path /sys -o -path /dev -o -path /usr \\) -prune -o -name secret.txt -print 2>/dev/null",
      'timeout 60 grep -rlsF -- "$1" /home /tmp /root /var /opt /srv /mnt /etc "$2" 2>/dev/null',
      "true",
    ].join("; ");
    // Positive control: the same search in A finds A's own file.
    expect((await a.exec(["bash", "-c", search, "s", marker, dirname(treeA)], { timeoutMs: 90_000 })).output).toContain(
      "secret.txt",
    );
    const found = await b.exec(["bash", "-c", search, "s", marker, dirname(treeA)], { timeoutMs: 90_000 });
    expect(found.output).not.toContain(marker);
    expect(found.output).not.toContain("secret.txt");
    const direct = await b.exec(["cat", `${treeA}/secret.txt`], { timeoutMs: 20_000 });
    expect(direct.exitCode).not.toBe(0);
    expect(direct.output).not.toContain(marker);
    await expect(b.readFile(`${treeA}/secret.txt`)).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
    // A link planted in B resolves inside B's jail, never in the stand-in's (root) process.
    await sh(b, `ln -s '${treeA}/secret.txt' stolen; ln -s /etc/shadow shadow`);
    await expect(b.readFile("stolen")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
    const hostShadow = await readFile("/etc/shadow", "utf8").catch(() => null);
    const viaLink = await b.readFile("shadow").catch(() => null);
    if (hostShadow !== null && hostShadow !== "") expect(viaLink).not.toBe(hostShadow);
    // A hard link to a host file would be chowned along with the tree when it is lent to the job's uid.
    const hard = await sh(b, "ln /etc/passwd hl 2>&1; ln /etc/hostname hl2 2>&1; ls -A");
    expect(hard.output).not.toMatch(/^hl2?$/m);
    // Writes through a planted link to a host file fail inside the jail; the host file is untouched.
    const passwd = await readFile("/etc/passwd", "utf8");
    await sh(b, "ln -s /etc/passwd pw");
    await expect(b.writeFile("pw", "owned\n")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
    expect(await readFile("/etc/passwd", "utf8")).toBe(passwd);
    // Writes through B's API never land in A.
    await b.writeFile(`${treeA}/secret.txt`, "overwritten").catch(() => {});
    expect(await a.readFile("secret.txt")).toBe(marker);
  }, 240_000);

  test("closing the e2b sandbox closes the environments still open", async () => {
    const own = await createSandbox({
      backend: "e2b",
      logger: silentLogger(),
      backendOptions: { apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url },
    });
    const env = await environmentsOf(own, "test").openEnvironment(spec());
    expect(standIn.live.has(env.id)).toBe(true);
    await own.close();
    expect(standIn.live.has(env.id)).toBe(false);
    await expect(environmentsOf(own, "test").openEnvironment(spec())).rejects.toMatchObject({
      code: "E_SANDBOX_CLOSED",
    });
  });

  test("a template E2B refuses: E_SANDBOX_UNAVAILABLE; a bad file name is refused before any request", async () => {
    const before = standIn.counts["POST /v2/sandboxes"] ?? 0;
    await expect(openWith({}, { files: { dir: HOME, entries: { "../escape": "x" } } })).rejects.toMatchObject({
      code: "E_SANDBOX_OPTIONS",
    });
    expect(standIn.counts["POST /v2/sandboxes"] ?? 0).toBe(before);
    await expect(
      openE2bEnvironment(spec(), { ...ctx, connection: { ...ctx.connection, apiKey: "wrong" } }),
    ).rejects.toMatchObject({ code: "E_SANDBOX_UNAVAILABLE" });
  });
});
