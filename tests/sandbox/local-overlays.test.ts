import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/util/logger.js";

// Overlays need root (bubblewrap itself is required: tests/global-setup.ts checks it).
const isRoot = process.getuid?.() === 0;
if (!isRoot)
  process.stderr.write(
    "[skip] local-overlays.test.ts: overlays and asRoot need root; run the suite as root to cover them\n",
  );
const md5 = (p: string) => (existsSync(p) ? createHash("md5").update(readFileSync(p)).digest("hex") : "absent");

describe.skipIf(!isRoot)("overlays, binds and asRoot (RedCode-style throw-away filesystem)", () => {
  let sb: Sandbox;
  let scratch: string;
  beforeAll(async () => {
    sb = await createSandbox({ backend: "local", logger: silentLogger() });
    scratch = await mkdtemp(join(tmpdir(), "a2a-ovl-test-"));
  });
  afterAll(async () => {
    await sb.close();
    await rm(scratch, { recursive: true, force: true });
  });

  test("writes and deletes in /usr, /etc, /root land in upper dirs; the host is untouched", async () => {
    const ups = { usr: join(scratch, "usr"), etc: join(scratch, "etc"), root: join(scratch, "root") };
    const fakeHome = join(scratch, "home");
    for (const d of [...Object.values(ups), fakeHome]) await mkdir(d);
    await writeFile(join(fakeHome, ".bashrc"), "# fake\n");
    const watched = ["/etc/hosts", "/etc/passwd", "/root/.bashrc", "/usr/bin/env"];
    const before = watched.map(md5);
    const r = await sb.exec({
      language: "bash",
      timeoutMs: 10_000,
      asRoot: true,
      overlays: [
        { target: "/usr", upperDir: ups.usr },
        { target: "/etc", upperDir: ups.etc },
        { target: "/root", upperDir: ups.root, lowerDir: fakeHome },
      ],
      code: [
        "id -u",
        "echo payload > /usr/downloaded_script.py",
        "cp /etc/passwd /usr/copy_file",
        "rm -f /etc/hosts /usr/bin/env",
        // The overlay's lower layer is the sandbox's own /etc (the allowlist), not the host's.
        "test -e /etc/hostname || echo no-hostname",
        "echo 'alias ls=\"rm -rf\"' >> /root/.bashrc",
        "cat /etc/shadow 2>&1 | head -c 40; echo",
      ].join("\n"),
    });
    expect(r.infraError).toBeUndefined();
    expect(r.stdoutTail.split("\n")[0]).toBe("0");
    expect(r.stdoutTail).not.toMatch(/root:[^:]*:\d/); // shadow is masked
    expect(await readFile(join(ups.usr, "downloaded_script.py"), "utf8")).toBe("payload\n");
    expect(existsSync(join(ups.usr, "copy_file"))).toBe(true);
    expect(lstatSync(join(ups.etc, "hosts")).isCharacterDevice()).toBe(true); // whiteout = deleted
    expect(r.stdoutTail).toContain("no-hostname");
    expect(await readFile(join(ups.root, ".bashrc"), "utf8")).toContain("alias ls=");
    expect(watched.map(md5)).toEqual(before);
    expect(existsSync("/usr/downloaded_script.py")).toBe(false);
    expect(existsSync("/usr/copy_file")).toBe(false);
  });

  test("under an /etc overlay the host's /etc/shadow stays hidden, yet a program may write its own fake", async () => {
    const up = join(scratch, "etc-shadow");
    await mkdir(up);
    const hostShadow = md5("/etc/shadow");
    const r = await sb.exec({
      language: "bash",
      timeoutMs: 10_000,
      asRoot: true,
      overlays: [{ target: "/etc", upperDir: up }],
      code: [
        "printf 'seen=%s\\n' \"$(wc -c < /etc/shadow)\"",
        "echo 'root:fake-hash:19000:0:99999:7:::' > /etc/shadow",
        "cat /etc/shadow",
      ].join("\n"),
    });
    expect(r.infraError).toBeUndefined();
    expect(r.stdoutTail).toContain("seen=0"); // the host's content never shows, only the empty stand-in
    expect(r.stdoutTail).toContain("root:fake-hash:");
    expect(await readFile(join(up, "shadow"), "utf8")).toContain("root:fake-hash:");
    expect(md5("/etc/shadow")).toBe(hostShadow);
  });

  test("a read-only bind is visible but not writable; a writable one is", async () => {
    const ro = join(scratch, "ro");
    const rw = join(scratch, "rw");
    await mkdir(ro);
    await mkdir(rw);
    await writeFile(join(ro, "in.txt"), "data");
    const r = await sb.exec({
      language: "bash",
      timeoutMs: 5000,
      binds: [
        { host: ro, target: "/tmp/in", writable: false },
        { host: rw, target: "/tmp/out", writable: true },
      ],
      code: "cat /tmp/in/in.txt; (echo x > /tmp/in/new) 2>/dev/null || echo ro-refused; echo y > /tmp/out/made",
    });
    expect(r.stderrTail).toBe("");
    expect(r.stdoutTail).toBe("dataro-refused\n");
    expect(await readFile(join(rw, "made"), "utf8")).toBe("y\n");
    expect(existsSync(join(ro, "new"))).toBe(false);
  });
});
