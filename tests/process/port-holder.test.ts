import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listeningInodes, listeningPids } from "../../src/process/port-holder.js";
import { startListener, type Listener } from "../support/listener.js";
import { freePort } from "../scenario/helpers.js";

const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2329 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0 100 0 0 10 0
   1: 00000000:2329 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 222 1 0 100 0 0 10 0
   2: 0100007F:2329 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 333 1 0 20 4 30 10 -1
   3: 0100007F:232A 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 444 1 0 100 0 0 10 0
`;

describe("listeningInodes", () => {
  it("keeps the LISTEN sockets of the port on any address, not connections or other ports", () => {
    expect([...listeningInodes(TABLE, 9001)]).toEqual(["111", "222"]);
    expect([...listeningInodes(TABLE, 9002)]).toEqual(["444"]);
    expect([...listeningInodes(TABLE, 9003)]).toEqual([]);
    expect([...listeningInodes("", 9001)]).toEqual([]);
  });
});

describe("listeningPids (this host's /proc)", () => {
  let listener: Listener;
  beforeAll(async () => {
    listener = await startListener();
  });
  afterAll(async () => {
    await listener.stop();
  });

  it("finds the process listening on a port, and nobody on a free one", async () => {
    expect(listeningPids(listener.port)).toEqual([listener.pid]);
    expect(listeningPids(await freePort())).toEqual([]);
  });

  it("says undefined when the socket tables cannot be read", () => {
    expect(listeningPids(listener.port, "/nonexistent-proc")).toBeUndefined();
  });
});
