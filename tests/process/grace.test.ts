import { describe, expect, test } from "vitest";
import {
  DEFAULT_GRACE_MS,
  GROUP_POLL_MS,
  KILL_REAP_MS,
  LEFTOVER_GRACE_MS,
  PIPE_DRAIN_MS,
} from "../../src/process/index.js";

describe("the named waits", () => {
  test("the default SIGTERM → SIGKILL grace is execa's forceKillAfterDelay default, 5 s", () => {
    expect(DEFAULT_GRACE_MS).toBe(5_000);
  });

  test("the group poll is finer than every wait it polls for, so a wait ends within a poll of the group's end", () => {
    for (const wait of [LEFTOVER_GRACE_MS, KILL_REAP_MS, DEFAULT_GRACE_MS])
      expect(GROUP_POLL_MS * 10).toBeLessThanOrEqual(wait);
  });

  test("leftovers of a leader that ended on its own get less than a terminated child's grace", () => {
    expect(LEFTOVER_GRACE_MS).toBeLessThan(DEFAULT_GRACE_MS);
    expect(PIPE_DRAIN_MS).toBeGreaterThan(0);
  });
});
