import { describe, expect, test } from "vitest";
import { E2B_SDK_PACKAGE, loadE2bSdk } from "../../../src/sandbox/e2b/load-sdk.js";
import { createE2bSandbox } from "../../../src/sandbox/e2b/e2b-sandbox.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { SandboxError } from "../../../src/sandbox/errors.js";
import { silentLogger } from "../../../src/util/logger.js";

/** What `import("@e2b/code-interpreter")` rejects with when an install left the package out. */
function notInstalled(): Promise<never> {
  return Promise.reject(
    Object.assign(new Error(`Cannot find package '${E2B_SDK_PACKAGE}' imported from /app/dist/e2b-sandbox.js`), {
      code: "ERR_MODULE_NOT_FOUND",
    }),
  );
}

describe("loading the optional E2B SDK", () => {
  test("installed (as here): the real module, with its Sandbox class", async () => {
    const sdk = await loadE2bSdk();
    expect(typeof sdk.Sandbox.create).toBe("function");
  });

  test("not installed: SandboxError E_E2B_SDK_MISSING naming the package and the install command", async () => {
    const err = await loadE2bSdk(notInstalled).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxError);
    expect(err).toMatchObject({ code: "E_E2B_SDK_MISSING" });
    expect((err as Error).message).toContain("the e2b sandbox needs the optional package @e2b/code-interpreter");
    expect((err as Error).message).toContain("run `npm install @e2b/code-interpreter`");
  });

  test("any other load failure is passed on unchanged", async () => {
    const broken = new Error("SyntaxError in the SDK");
    await expect(loadE2bSdk(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  test("an e2b sandbox configured (API key set) without the package fails with that error, before any request", async () => {
    let imported = 0;
    const err = await createE2bSandbox({
      limits: DEFAULT_LIMITS,
      logger: silentLogger(),
      e2b: { apiKey: "test-key", apiUrl: "http://127.0.0.1:9/" },
      importSdk: () => {
        imported += 1;
        return notInstalled();
      },
    }).catch((e: unknown) => e);
    expect(imported).toBe(1);
    expect(err).toMatchObject({ code: "E_E2B_SDK_MISSING" });
  });
});
