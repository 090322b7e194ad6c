/**
 * TypeScript test cases are transpiled (types erased, no type check) to
 * CommonJS JavaScript before node runs them: CommonJS so that `import x from
 * "pkg"` becomes `require("pkg")`, which resolves through NODE_PATH and thus
 * finds the installed packages. `typescript` is loaded lazily: runs without
 * TypeScript cases do not pay for it.
 */
import { BenchError } from "../../util/errors.js";

type TsModule = typeof import("typescript");
let ts: Promise<TsModule> | undefined;

/** Transpile one program; syntax errors are reported as a BenchError `E_SPARC_TRANSPILE`. */
export async function transpileTypeScript(source: string, fileName = "case.ts"): Promise<string> {
  ts ??= import("typescript").then((m) => (m as { default?: TsModule }).default ?? m);
  const t = await ts;
  const out = t.transpileModule(source, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: {
      module: t.ModuleKind.CommonJS,
      target: t.ScriptTarget.ES2022,
      esModuleInterop: true,
      sourceMap: false,
    },
  });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === t.DiagnosticCategory.Error);
  if (errors.length > 0) {
    const text = errors.map((d) => t.flattenDiagnosticMessageText(d.messageText, "\n")).join("; ");
    throw new BenchError("E_SPARC_TRANSPILE", `TypeScript transpilation failed: ${text}`);
  }
  return out.outputText;
}
