import { describe, expect, it } from "vitest";
import { refuseEngineOnly } from "../../src/sandbox/environment.js";
import { createArgs } from "../../src/sandbox/docker/keepalive.js";
import { environmentContainer, openDockerEnvironment } from "../../src/sandbox/docker/docker-environment.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/limits.js";

describe("what only container-engine backends offer an environment", () => {
  it("a backend without them refuses a spec naming a network or a prepare hook, by name, and lets others pass", () => {
    expect(() => refuseEngineOnly({ owner: "o", network: "bridge" }, "local")).toThrow(
      /local backend gives environments no network: spec\.network \(bridge\)/,
    );
    expect(() => refuseEngineOnly({ owner: "o", prepare: () => Promise.resolve("img") }, "e2b")).toThrow(
      /e2b backend does not build images where it places an environment/,
    );
    expect(() => refuseEngineOnly({ owner: "o", image: "img" }, "kubernetes")).not.toThrow();
  });

  it("a docker environment's container has no network unless the spec names one", () => {
    const net = (args: string[]): string => args[args.indexOf("--network") + 1]!;
    expect(net(createArgs(environmentContainer("img", "o", DEFAULT_LIMITS), "c"))).toBe("none");
    expect(net(createArgs(environmentContainer("img", "o", DEFAULT_LIMITS, "tasks-net"), "c"))).toBe("tasks-net");
  });

  it("a docker environment never joins the host's network nor a name that is not a network's", async () => {
    for (const network of ["host", "container:abc", "--privileged"])
      await expect(
        openDockerEnvironment({ owner: "o", image: "img", network, limits: DEFAULT_LIMITS }, process.env),
      ).rejects.toThrow(/is not an engine network offered/);
  });
});
