import { describe, expect, test } from "vitest";
import { EpisodeStore } from "../../../src/purple/interactive/episode-store.js";

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("episode store: per-context state, bounded", () => {
  test("keeps an episode between turns; a released-for-good episode is gone", () => {
    const store = new EpisodeStore<string>();
    store.begin("c1", "e1");
    store.release("c1", true);
    expect(store.acquire("c1")).toBe("e1");
    store.release("c1", false);
    expect(store.acquire("c1")).toBeUndefined();
    expect(store.size).toBe(0);
  });

  test("at most maxContexts episodes: the least recently used idle one makes room", () => {
    const c = clock();
    const store = new EpisodeStore<string>({ maxContexts: 2, now: c.now });
    store.begin("a", "A");
    store.release("a", true);
    c.advance(1);
    store.begin("b", "B");
    store.release("b", true);
    c.advance(1);
    expect(store.acquire("a")).toBe("A"); // a is now the most recently used
    store.release("a", true);
    c.advance(1);
    store.begin("c", "C");
    store.release("c", true);
    expect(store.size).toBe(2);
    expect(store.acquire("b")).toBeUndefined();
    expect(store.acquire("a")).toBe("A");
  });

  test("a store full of running turns refuses a new episode instead of growing", () => {
    const store = new EpisodeStore<string>({ maxContexts: 2 });
    store.begin("a", "A");
    store.begin("b", "B");
    expect(() => store.begin("c", "C")).toThrow(expect.objectContaining({ code: "E_EPISODES_FULL" }) as unknown);
    expect(store.size).toBe(2);
    store.release("a", true);
    store.begin("c", "C");
    expect(store.acquire("a")).toBeUndefined();
  });

  test("an episode idle for idleMs expires; one mid-turn does not", () => {
    const c = clock();
    const store = new EpisodeStore<string>({ idleMs: 1000, now: c.now });
    store.begin("idle", "I");
    store.release("idle", true);
    store.begin("busy", "B");
    c.advance(999);
    expect(store.size).toBe(2);
    c.advance(1);
    expect(store.size).toBe(1);
    expect(store.acquire("idle")).toBeUndefined();
    store.release("busy", true);
    expect(store.acquire("busy")).toBe("B");
  });

  test("one turn at a time per context", () => {
    const store = new EpisodeStore<string>();
    store.begin("c", "E");
    expect(() => store.acquire("c")).toThrow(/still running/);
    expect(() => store.begin("c", "F")).toThrow(expect.objectContaining({ code: "E_EPISODE_BUSY" }) as unknown);
    store.release("c", true);
    store.begin("c", "F"); // a new task in an idle context starts over
    store.release("c", true);
    expect(store.acquire("c")).toBe("F");
  });

  test("bounds are checked", () => {
    expect(() => new EpisodeStore({ maxContexts: 0 })).toThrow("maxContexts must be a positive integer");
    expect(() => new EpisodeStore({ idleMs: 0 })).toThrow("idleMs must be positive");
  });
});
