import { describe, expect, test } from "vitest";
import { plainCopy } from "../../src/util/plain-copy.js";

describe("plainCopy", () => {
  test("copies JSON-shaped data deeply: equal, and nothing shared", () => {
    const task = {
      id: "t",
      status: { state: 3, timestamp: "2026-01-01T00:00:00Z", message: undefined },
      history: [
        { parts: [{ content: { $case: "text", value: "hi" } }], metadata: { n: 1, list: [1, [2, { x: null }]] } },
      ],
      bytes: new Uint8Array([1, 2, 3]),
    };
    const c = plainCopy(task);
    expect(c).toEqual(structuredClone(task));
    expect("message" in c.status).toBe(true); // undefined-valued keys are kept, as structuredClone keeps them
    c.history[0]!.metadata.list.push(9);
    c.bytes[0] = 99;
    c.status.state = 4;
    expect(task.history[0]!.metadata.list).toEqual([1, [2, { x: null }]]);
    expect(task.bytes[0]).toBe(1);
    expect(task.status.state).toBe(3);
  });

  test("an own __proto__ key stays a key and does not change the copy's prototype", () => {
    const evil = JSON.parse('{"metadata": {"__proto__": {"polluted": true}}}') as { metadata: Record<string, unknown> };
    const c = plainCopy(evil);
    expect(Object.getPrototypeOf(c.metadata)).toBe(Object.prototype);
    expect((c.metadata as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(c.metadata)).toEqual(["__proto__"]);
    expect(c).toEqual(structuredClone(evil));
  });

  test("anything not plain is left to structuredClone: dates, maps, cycles", () => {
    const when = { at: new Date(0), m: new Map([["k", 1]]) };
    const c = plainCopy(when);
    expect(c.at).toBeInstanceOf(Date);
    expect(c.at).not.toBe(when.at);
    expect(c.m.get("k")).toBe(1);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic["self"] = cyclic;
    const cc = plainCopy(cyclic);
    expect(cc["self"]).toBe(cc);
  });
});
