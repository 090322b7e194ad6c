// Uses the built dist/ (npm test builds first): a plain node parent cannot load .ts on Node 20.
import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../src/util/package-root.js";
import { signalGroup } from "../../src/process/index.js";
import { alive, fixture } from "./helpers.js";

const layer = pathToFileURL(join(packageRoot, "dist", "process", "index.js")).href;

/** Run the throwaway parent to its exit; resolves with its child's pid. */
async function parentExits(...extra: string[]): Promise<number> {
  const parent = spawn(process.execPath, [fixture("parent-exits.mjs"), layer, ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const childPid = await new Promise<number>((resolve, reject) => {
    parent.stdout.once("data", (d: Buffer) => resolve(Number(String(d).trim())));
    parent.once("error", reject);
  });
  await new Promise((r) => parent.once("exit", r));
  return childPid;
}

async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

describe("children die with the parent", () => {
  test("a TERM-ignoring child is killed when its parent exits", async () => {
    const childPid = await parentExits();
    expect(await goneWithin(childPid, 2_000)).toBe(true);
  });

  test("a group handed over (forgetGroup) is left running when the parent exits", async () => {
    const childPid = await parentExits("forget");
    try {
      expect(await goneWithin(childPid, 300)).toBe(false);
    } finally {
      signalGroup(childPid, "SIGKILL");
    }
    expect(await goneWithin(childPid, 2_000)).toBe(true);
  });
});
