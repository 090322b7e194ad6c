/** The docker pool's engine list: URLs the docker CLI speaks to, an optional capacity, no duplicates. */
import { describe, expect, test } from "vitest";
import { DOCKER_HOSTS_ENV, parsePoolHost, poolHosts } from "../../../src/sandbox/docker-pool/hosts.js";

describe("docker pool hosts", () => {
  test.each([
    ["unix:///tmp/e/docker.sock", { url: "unix:///tmp/e/docker.sock" }],
    ["tcp://10.0.0.5:2375", { url: "tcp://10.0.0.5:2375" }],
    ["ssh://ci@builder:2222#capacity=8", { url: "ssh://ci@builder:2222", capacity: 8 }],
    ["ssh://builder", { url: "ssh://builder" }],
  ])("accepts %s", (text, want) => {
    expect(parsePoolHost(text)).toEqual(want);
  });

  test.each([
    ["http://x:2375", "is not an engine URL"],
    ["unix://relative.sock", "is not an engine URL"],
    ["tcp://host", "is not an engine URL"],
    ["tcp://h:1#capacity=0", "after # only capacity=N"],
    ["tcp://h:1#cpus=2", "after # only capacity=N"],
  ])("refuses %s", (text, message) => {
    expect(() => parsePoolHost(text)).toThrow(message);
  });

  test("the config's list wins; else the variable, comma- or space-separated; none or a duplicate is refused", () => {
    const env = { [DOCKER_HOSTS_ENV]: "tcp://a:1, tcp://b:2 unix:///c.sock" };
    expect(poolHosts(["tcp://z:9"], env)).toEqual([{ url: "tcp://z:9" }]);
    expect(poolHosts(undefined, env).map((h) => h.url)).toEqual(["tcp://a:1", "tcp://b:2", "unix:///c.sock"]);
    expect(() => poolHosts(undefined, {})).toThrow(`docker_hosts in the config, or ${DOCKER_HOSTS_ENV}`);
    expect(() => poolHosts(["tcp://a:1", "tcp://a:1#capacity=2"], {})).toThrow("tcp://a:1 is listed twice");
  });
});
