/**
 * Lines printed above the progress bar on a narrow terminal: never cut at the
 * terminal's width (they wrap, whole), and the bar is drawn again below them.
 */
import { describe, expect, test } from "vitest";
import { TerminalBar } from "../../src/util/terminal-bar.js";
import { FakeTty, renderScreen } from "../support/fake-tty.js";

const FORMAT = "run [{bar}] {value}/{total} | {last}";

/** A line longer than the terminal is wide, its end recognisable. */
const LONG = "worker said: " + Array.from({ length: 12 }, (_, i) => `word${i}`).join(" ") + " THE-END";

function narrowTty(columns: number): FakeTty {
  const out = new FakeTty();
  out.columns = columns;
  return out;
}

/**
 * Where `line` starts in the screen's text, its rows run together, blanks ignored (a wrapped line's
 * rows lose the blank at a row's end): -1 when the screen does not show it whole.
 */
function shownAt(screen: string[], line: string): number {
  const squeeze = (t: string): string => t.replace(/\s+/g, "");
  return squeeze(screen.join("")).indexOf(squeeze(line));
}

describe("TerminalBar on a narrow terminal", () => {
  test.each([30, 40, 60])("a log line longer than %i columns is shown whole above the redrawn bar", (columns) => {
    const out = narrowTty(columns);
    const bar = new TerminalBar(out, { format: FORMAT });
    try {
      bar.start(5, 0, { last: "" });
      bar.update(1, { last: "a" });
      bar.log(LONG);
      bar.log("short line");
      const screen = renderScreen(out.raw, columns).filter((l) => l !== "");
      expect(LONG.length).toBeGreaterThan(columns);
      expect(shownAt(screen, LONG)).toBeGreaterThanOrEqual(0);
      expect(shownAt(screen, "short line")).toBeGreaterThan(shownAt(screen, LONG));
      expect(screen.at(-2)).toBe("short line");
      // The bar is drawn again on the last row, below the log lines, short of the width (one row,
      // redrawable in place), though its text did not change since the lines were printed.
      const last = screen.at(-1)!;
      expect(last).toMatch(/^run \[/);
      expect(last.length).toBeLessThan(columns);
    } finally {
      bar.stop();
    }
  });

  test("after the bar stops, a long line is still written whole and wrapping is left on", () => {
    const out = narrowTty(30);
    const bar = new TerminalBar(out, { format: FORMAT });
    bar.start(2, 0, { last: "" });
    bar.log(LONG);
    bar.stop();
    bar.log(LONG);
    const screen = renderScreen(out.raw, 30);
    const first = shownAt(screen, LONG);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(shownAt(screen.slice(Math.ceil(LONG.length / 30)), LONG)).toBeGreaterThanOrEqual(0);
    expect(screen.some((l) => l.startsWith("run ["))).toBe(false);
    const lastWrap = Math.max(out.raw.lastIndexOf("\x1b[?7l"), out.raw.lastIndexOf("\x1b[?7h"));
    if (lastWrap >= 0) expect(out.raw.slice(lastWrap, lastWrap + 5)).toBe("\x1b[?7h");
  });
});
