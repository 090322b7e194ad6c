/**
 * The flags every agent server takes, parsed once for green and purple; and the
 * reason it is a module of its own: the purple's start loads none of the
 * green's code (checked on the built bundle's import graph).
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseServerArgs } from "../../src/cli/server-args.js";
import { packageRoot } from "../../src/util/package-root.js";

describe("parseServerArgs", () => {
  test("--grpc-port: a port (0 = a free one), never --port's, else a usage error", () => {
    expect(parseServerArgs(["--grpc-port", "0"], 9998).server.grpcPort).toBe(0);
    expect(parseServerArgs(["--port", "0", "--grpc-port", "0"], 9998).server.grpcPort).toBe(0);
    expect(parseServerArgs(["--grpc-port", "50051"], 9998).server.grpcPort).toBe(50051);
    expect(() => parseServerArgs(["--grpc-port", "x"], 9998)).toThrow(/--grpc-port must be an integer/);
    expect(() => parseServerArgs(["--grpc-port", "70000"], 9998)).toThrow(/--grpc-port must be an integer/);
    expect(() => parseServerArgs(["--port", "9000", "--grpc-port", "9000"], 9998)).toThrow(/must differ from --port/);
  });

  test("defaults: loopback host, the given port, no card URL, the packaged scenario dir", () => {
    const { server } = parseServerArgs([], 9998);
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).toBe(9998);
    expect(server.cardUrl).toBeUndefined();
    expect(server.grpcPort).toBeUndefined();
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

/** The part of esbuild's metafile (`npm run bundle` writes it) read here. */
interface Metafile {
  outputs: Record<
    string,
    {
      entryPoint?: string;
      imports: { path: string; kind: string; external?: boolean }[];
      inputs: Record<string, { bytesInOutput: number }>;
    }
  >;
}

/**
 * Every output chunk a built chunk imports, transitively (static imports only: what loads at start).
 * Paths are the metafile's: relative to the package root, e.g. `dist/chunks/chunk-X.js`.
 */
function staticClosure(meta: Metafile, entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    const output = meta.outputs[file];
    expect(output, `${file} is an output of the bundle`).toBeDefined();
    seen.add(file);
    for (const i of output!.imports) if (i.kind === "import-statement" && i.external !== true) todo.push(i.path);
  }
  return seen;
}

describe("the purple's start in the built bundle", () => {
  test("loads no module of the green (its app, executor, isolation probe, bundle)", () => {
    // The bundle is minified, so its text names no source modules: its metafile maps outputs to inputs.
    const meta = JSON.parse(readFileSync(join(packageRoot, "dist", "esbuild-meta.json"), "utf8")) as Metafile;
    const purpleChunk = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === "dist/cli/purple.js")?.[0];
    expect(purpleChunk, "the bundle has a chunk for the purple command").toBeDefined();
    const cliLoadsPurple = meta.outputs["dist/cli.js"]?.imports.some(
      (i) => i.path === purpleChunk && i.kind === "dynamic-import",
    );
    expect(cliLoadsPurple, "dist/cli.js loads the purple command's chunk with import()").toBe(true);
    const loaded = staticClosure(meta, purpleChunk!);
    // The source modules with code in those chunks: a module with none (a list of re-exports) is left out, as the
    // unminified bundle wrote no `// dist/...` marker for it.
    const sources = [...loaded].flatMap((f) =>
      Object.entries(meta.outputs[f]!.inputs)
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([path]) => path),
    );
    expect(sources.length).toBeGreaterThan(10);
    expect(
      sources.filter((s) => s.startsWith("dist/green/") || s.startsWith("dist/bundle/") || s === "dist/cli/green.js"),
    ).toEqual([]);
    expect(sources).toContain("dist/cli/server-args.js");
  });
});
