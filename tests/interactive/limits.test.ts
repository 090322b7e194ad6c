import { describe, expect, test } from "vitest";
import { clampCommandTimeout, EpisodeLimitsError, resolveLimits } from "../../src/interactive/limits.js";

describe("resolveLimits", () => {
  test("fills the defaults", () => {
    expect(resolveLimits()).toEqual({ maxTurns: 100, episodeTimeS: 1800, turnTimeoutS: 300, commandTimeoutS: 60 });
  });

  test.each([
    [{ maxTurns: 251 }, /maxTurns must be an integer from 1 to 250, got 251/],
    [{ maxTurns: 0 }, /maxTurns/],
    [{ episodeTimeS: 1.5 }, /episodeTimeS/],
    [{ commandTimeoutS: 301 }, /commandTimeoutS must be an integer from 1 to 300/],
    [{ turnTimeoutS: -1 }, /turnTimeoutS/],
  ])("refuses %o naming the limit", (given, message) => {
    expect(() => resolveLimits(given)).toThrow(EpisodeLimitsError);
    expect(() => resolveLimits(given)).toThrow(message);
  });

  test("accepts the ceiling of 250 turns", () => {
    expect(resolveLimits({ maxTurns: 250 }).maxTurns).toBe(250);
  });
});

describe("clampCommandTimeout", () => {
  test.each([
    [undefined, 60],
    [30, 30],
    [0, 1],
    [-5, 1],
    [301, 300],
    [1e9, 300],
    [2.2, 3],
    ["45", 45],
    ["abc", 60],
    [null, 60],
    [Number.NaN, 60],
    [Number.POSITIVE_INFINITY, 60],
  ])("%o → %i s", (requested, expected) => {
    expect(clampCommandTimeout(requested)).toBe(expected);
  });

  test("uses the episode's default when none is requested", () => {
    expect(clampCommandTimeout(undefined, 20)).toBe(20);
  });
});
