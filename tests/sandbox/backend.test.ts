import { describe, expect, it } from "vitest";
import { backendOptionsFor, checkBackendOptions } from "../../src/sandbox/backend.js";
import { createSandbox, sandboxBackend } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/util/logger.js";

describe("each backend checks its own options before its code loads", () => {
  it.each([
    ["local", { forceIsolation: "chroot" }, /option "forceIsolation" must be one of bwrap, unshare, none/],
    ["local", { image: "x" }, /local backend has no option "image" \(its options: forceIsolation\)/],
    ["docker", { mode: "per-day" }, /option "mode" must be one of per-run, per-job/],
    ["docker", { hosts: ["unix:///x"] }, /docker backend has no option "hosts"/],
    ["e2b", { sandboxTimeoutMs: "soon" }, /option "sandboxTimeoutMs" must be a number/],
    ["e2b", { environmentTemplates: { a: 1 } }, /option "environmentTemplates" must be a string-record/],
    ["docker-pool", { hosts: "unix:///x" }, /option "hosts" must be a list of engine URLs/],
    ["docker-pool", { images: ["a", 2] }, /option "images" must be a string-list/],
    ["docker-pool", { forceIsolation: "none" }, /docker-pool backend has no option "forceIsolation"/],
    ["kubernetes", { inCluster: "yes" }, /option "inCluster" must be a boolean/],
    ["kubernetes", { imagePullPolicy: "Sometimes" }, /must be one of Always, IfNotPresent, Never/],
    ["kubernetes", [], /kubernetes backend options must be an object/],
  ])("%s refuses %j", async (backend, raw, message) => {
    const err = await createSandbox({ backend, logger: silentLogger(), backendOptions: raw }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "E_SANDBOX_OPTIONS", message: expect.stringMatching(message) });
  });

  it("passes what fits through unchanged, and none as an empty set", () => {
    const pool = { image: "img", mode: "per-job", hosts: ["unix:///a", { url: "tcp://b:2375", capacity: 3 }] };
    expect(backendOptionsFor(sandboxBackend("docker-pool"), pool)).toBe(pool);
    expect(backendOptionsFor(sandboxBackend("kubernetes"), undefined)).toEqual({});
  });

  it("a backend that declares no options refuses any", () => {
    const bare = { ...sandboxBackend("local"), name: "bare" };
    delete (bare as { backendOptions?: unknown }).backendOptions;
    expect(backendOptionsFor(bare, undefined)).toBeUndefined();
    expect(() => backendOptionsFor(bare, {})).toThrow(/backend "bare" takes no backend options/);
  });

  it("a check of its own names what it accepts", () => {
    const even = { what: "an even number", fits: (v: unknown) => typeof v === "number" && v % 2 === 0 };
    expect(checkBackendOptions<{ n?: number }>("toy", { n: 4 }, { n: even })).toEqual({ n: 4 });
    expect(() => checkBackendOptions<{ n?: number }>("toy", { n: 3 }, { n: even })).toThrow(
      'toy backend option "n" must be an even number, got 3',
    );
  });

  it("a run's config reaches a backend through its descriptor: docker-pool takes docker_hosts, the others nothing", () => {
    const config = { sandbox: "docker-pool", docker_hosts: ["unix:///a.sock"], run_id: "r" };
    expect(sandboxBackend("docker-pool").runOptions?.(config)).toEqual({ hosts: ["unix:///a.sock"] });
    expect(sandboxBackend("docker-pool").runOptions?.({ run_id: "r" })).toBeUndefined();
    expect("runOptions" in sandboxBackend("docker")).toBe(false);
  });
});
