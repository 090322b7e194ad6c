/**
 * scripts/setup-system.sh, the one list of system packages (npm run setup,
 * .ci/run, the suite's global setup): a "fresh machine" is a PATH without
 * bubblewrap (nothing is uninstalled).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";
import { assertSystemTools } from "../global-setup.js";

const script = join(packageRoot, "scripts", "setup-system.sh");
const isRoot = process.getuid?.() === 0;
let bin: string;

beforeAll(() => {
  // Every program of /usr/bin and /bin but bwrap.
  bin = mkdtempSync(join(tmpdir(), "a2a-fresh-path-"));
  chmodSync(bin, 0o755); // the unprivileged run below must be able to search it
  for (const dir of ["/usr/bin", "/bin"]) {
    for (const name of readdirSync(dir)) {
      if (name === "bwrap") continue;
      try {
        symlinkSync(join(dir, name), join(bin, name));
      } catch {
        // already linked from the other dir
      }
    }
  }
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const noBwrap = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: bin });

describe("scripts/setup-system.sh", () => {
  test("--check passes here (every required tool installed) and names what a machine without bubblewrap lacks", () => {
    const here = spawnSync("bash", [script, "--check"], { encoding: "utf8" });
    expect(here.status, here.stderr).toBe(0);
    const fresh = spawnSync("bash", [script, "--check"], { encoding: "utf8", env: noBwrap() });
    expect(fresh.status).toBe(1);
    expect(fresh.stderr).toContain("bubblewrap: bwrap");
  });

  test("without root or password-less sudo it prints the exact apt command and exits 1", (ctx) => {
    if (!isRoot) {
      process.stderr.write("[skip] setup-system.test.ts: dropping to an unprivileged uid needs root\n");
      ctx.skip("needs root to run the script as an unprivileged user");
    }
    const r = spawnSync("setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups", "bash", script], {
      encoding: "utf8",
      env: noBwrap(),
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("not root and no password-less sudo");
    // bubblewrap is missing on that PATH; other packages may be too (Debian's python3 may lack pytest).
    expect(r.stderr).toMatch(/sudo sh -c 'apt-get update && apt-get install -y [^']*\bbubblewrap\b[^']*'/);
  });

  test("an unknown argument is a usage error", () => {
    expect(spawnSync("bash", [script, "--frobnicate"], { encoding: "utf8" }).status).toBe(2);
  });

  test("the suite's global setup stops with `npm run setup` when a required tool is missing", () => {
    expect(() => assertSystemTools(noBwrap())).toThrow(
      /required system tools are missing; run `npm run setup`[\s\S]*bubblewrap/,
    );
    expect(() => assertSystemTools()).not.toThrow();
  });
});
