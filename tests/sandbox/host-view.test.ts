import { describe, expect, test } from "vitest";
import { hostViewArgs, overlayLower, type HostEntry, type HostViewInput } from "../../src/sandbox/local/host-view.js";

/** A usrmerge'd host with a pyenv python under /root. */
function input(hidden: HostViewInput["hidden"] = [], runtimes = ["/root/.pyenv/versions/3.11.7", "/usr/bin/node"]) {
  const entries = new Map<string, HostEntry>([
    ["/bin", { kind: "symlink", target: "usr/bin" }],
    ["/lib", { kind: "symlink", target: "usr/lib" }],
    ["/lib64", { kind: "symlink", target: "usr/lib64" }],
    ["/sbin", { kind: "symlink", target: "usr/sbin" }],
    ["/etc/passwd", { kind: "file" }],
    ["/etc/ld.so.conf.d", { kind: "dir" }],
    ["/etc/ssl/certs", { kind: "dir" }],
    ["/etc/mtab", { kind: "symlink", target: "../proc/self/mounts" }],
  ]);
  return { entries, etcExtra: [], runtimes, hidden };
}

describe("hostViewArgs (what of the host a bwrap job's root holds)", () => {
  test("binds /usr, re-creates usrmerge links, binds present /etc entries only; never the host root", () => {
    const { system, late } = hostViewArgs(input());
    expect(system.join(" ")).not.toMatch(/--ro-bind \/ \//);
    expect(system.slice(0, 3)).toEqual(["--ro-bind", "/usr", "/usr"]);
    expect(system.join(" ")).toContain("--symlink usr/bin /bin");
    expect(system.join(" ")).toContain("--ro-bind /etc/passwd /etc/passwd");
    expect(system.join(" ")).toContain("--symlink ../proc/self/mounts /etc/mtab");
    expect(system.join(" ")).not.toContain("/etc/shadow");
    expect(system.join(" ")).not.toContain("/etc/hosts"); // absent on this host: skipped
    expect(late).toEqual([{ kind: "ro-bind", path: "/root/.pyenv/versions/3.11.7" }]); // node is inside /usr
  });

  test("a hidden path inside a shown tree is masked (dir: tmpfs, file: /dev/null); outside, nothing to do", () => {
    const { late } = hostViewArgs(
      input([
        { path: "/usr/local/share/datasets", dir: true },
        { path: "/usr/local/answers.jsonl", dir: false },
        { path: "/work/shared/datasets", dir: true },
        { path: "/", dir: true },
      ]),
    );
    expect(late).toContainEqual({ kind: "tmpfs", path: "/usr/local/share/datasets" });
    expect(late).toContainEqual({ kind: "null", path: "/usr/local/answers.jsonl" });
    expect(late.map((l) => l.path)).not.toContain("/work/shared/datasets");
    expect(late.map((l) => l.path)).not.toContain("/");
  });

  test("a runtime inside a masked path is bound back on top of the mask", () => {
    const { late } = hostViewArgs(
      input([{ path: "/usr/local/checkout", dir: true }], ["/usr/local/checkout/.venv", "/usr/bin/node"]),
    );
    const mask = late.findIndex((l) => l.kind === "tmpfs" && l.path === "/usr/local/checkout");
    const back = late.findIndex((l) => l.kind === "ro-bind" && l.path === "/usr/local/checkout/.venv");
    expect(mask).toBeGreaterThanOrEqual(0);
    expect(back).toBeGreaterThan(mask);
  });

  test("a hidden path holding a whole system tree is refused (it cannot be hidden)", () => {
    expect(() => hostViewArgs(input([{ path: "/usr", dir: true }]))).toThrow(
      /contains the sandbox's system tree \/usr/,
    );
  });
});

describe("overlayLower (an overlay starts from the job's own view, not the host's tree)", () => {
  test("/usr: the host's /usr; /etc: a copy of the shown entries; /var: empty; / is refused", () => {
    expect(overlayLower(input(), "/usr")).toEqual({ host: "/usr" });
    const etc = overlayLower(input(), "/etc");
    expect("copy" in etc && [...etc.copy].sort((a, b) => a.rel.localeCompare(b.rel))).toEqual([
      { from: "/etc/ld.so.conf.d", rel: "ld.so.conf.d" },
      { from: "/etc/mtab", rel: "mtab" },
      { from: "/etc/passwd", rel: "passwd" },
      { from: "/etc/ssl/certs", rel: "ssl/certs" },
    ]);
    expect(overlayLower(input(), "/var")).toEqual({ copy: [] });
    expect(() => overlayLower(input(), "/")).toThrow(/would show all of/);
  });
});
