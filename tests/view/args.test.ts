import { describe, expect, test } from "vitest";
import { parseViewArgs, DEFAULT_PORT } from "../../src/view/args.js";
import { UsageError } from "../../src/util/errors.js";

describe("parseViewArgs", () => {
  test("defaults: results/, loopback, the default port, no export", () => {
    expect(parseViewArgs([])).toEqual({ dirs: ["results"], host: "127.0.0.1", port: DEFAULT_PORT, exportFile: null });
  });

  test("directories, --host, --port 0 (any free port) and a bracketed IPv6 host", () => {
    expect(parseViewArgs(["a", "b", "--port", "0", "--host", "[::1]"])).toEqual({
      dirs: ["a", "b"],
      host: "::1",
      port: 0,
      exportFile: null,
    });
  });

  test("--export FILE with directories", () => {
    expect(parseViewArgs(["--export", "out.html", "runs"])).toMatchObject({ dirs: ["runs"], exportFile: "out.html" });
  });

  test.each([
    [["--port", "70000"], /--port must be an integer from 0 to 65535/],
    [["--port", "-1"], /--port must be an integer/],
    [["--port", "x"], /--port must be an integer/],
    [["--host", "a b"], /--host must be a host name/],
    [["--export", "o.html", "--port", "1"], /--host and --port do not apply/],
    [["--prot", "1"], /unknown option --prot \(did you mean --port\?\)/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseViewArgs(argv)).toThrow(UsageError);
    expect(() => parseViewArgs(argv)).toThrow(message);
  });
});
