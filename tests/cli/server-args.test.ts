/**
 * The flags every agent server takes, parsed once for green and purple; and the
 * reason it is a module of its own: the purple's start loads none of the
 * green's code (checked on the built bundle's import graph).
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseServerArgs } from "../../src/cli/server-args.js";
import { packageRoot } from "../../src/util/package-root.js";

describe("parseServerArgs", () => {
  test("defaults: loopback host, the given port, no card URL, the packaged scenario dir", () => {
    const { server } = parseServerArgs([], 9998);
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).toBe(9998);
    expect(server.cardUrl).toBeUndefined();
    expect(server.maxBodyBytes).toBeUndefined();
    expect(server.scenarioDir).toMatch(/scenario/);
  });

  test("each flag is read, and extra options are passed through", () => {
    const { server, values } = parseServerArgs(
      ["--host", "0.0.0.0", "--port", "0", "--card-url", "http://x:1/", "--max-body-bytes", "2048", "--mode", "echo"],
      1,
      { mode: { type: "string" } },
    );
    expect(server).toMatchObject({ host: "0.0.0.0", port: 0, cardUrl: "http://x:1/", maxBodyBytes: 2048 });
    expect(values["mode"]).toBe("echo");
  });

  test.each([
    [["--port", "x"], /--port must be an integer 0-65535, got "x"/],
    [["--port", "65536"], /--port must be an integer 0-65535/],
    [["--card-url", "ftp://x/"], /--card-url must be an http\(s\) URL/],
    [["--max-body-bytes", "lots"], /--max-body-bytes/],
    [["--nope"], /nope/],
  ])("%j is refused by name", (argv, message) => {
    expect(() => parseServerArgs(argv, 1)).toThrow(message);
  });
});

/** Every chunk a built module imports, transitively (static imports only: what loads at start). */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^import\s+(?:[^"']*?from\s+)?["'](\.\.?\/[^"']+)["']/gm))
      todo.push(resolve(dirname(file), m[1]!));
  }
  return seen;
}

describe("the purple's start in the built bundle", () => {
  const cli = join(packageRoot, "dist", "cli.js");
  test("loads no module of the green (its app, executor, isolation probe, bundle)", () => {
    const purpleChunk = /purple: async \(\) => \(await import\("(\.\/chunks\/purple-[^"]+)"\)\)/.exec(
      readFileSync(cli, "utf8"),
    );
    expect(purpleChunk, "dist/cli.js names the purple command's chunk").not.toBeNull();
    const loaded = staticClosure(resolve(dirname(cli), purpleChunk![1]!));
    const sources = [...loaded].flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/^\/\/ (dist\/\S+)$/gm)].map((m) => m[1]!),
    );
    expect(sources.length).toBeGreaterThan(10);
    expect(
      sources.filter((s) => s.startsWith("dist/green/") || s.startsWith("dist/bundle/") || s === "dist/cli/green.js"),
    ).toEqual([]);
    expect(sources).toContain("dist/cli/server-args.js");
  });
});
