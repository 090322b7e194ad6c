/**
 * The conformance checks of the `environments` capability (../environment.ts):
 * commands as argv, files in and out, a timeout that ends the environment,
 * and teardown (close of the environment, close of its sandbox).
 */
import type { Sandbox } from "../types.js";
import { environmentsOf, type Environment, type EnvironmentExecOutcome, type EnvironmentSpec } from "../environment.js";
import { newMarker, waitForCount } from "./observe.js";
import { released, START_MS, vanished } from "./exec-checks.js";
import type { Check, CheckContext, CheckOutcome, OwnCheck } from "./types.js";

const QUICK_MS = 120_000;

/** The spec, or why environments do not apply. */
function specOf(ctx: CheckContext, sb: Sandbox): EnvironmentSpec | { na: string } {
  if (!sb.capabilities.has("environments"))
    return { na: `the ${ctx.descriptor.name} backend does not offer environments here` };
  if (sb.capabilities.has("images") && ctx.image === undefined)
    return { na: "environments start from an image and none was given (--image)" };
  return {
    owner: ctx.owner,
    files: { dir: ctx.filesDir, entries: { "given.txt": "from the spec\n" } },
    ...(sb.capabilities.has("images") ? { image: ctx.image! } : {}),
  };
}

function seen(o: EnvironmentExecOutcome): string {
  return JSON.stringify({ ...o, output: o.output.slice(-300) });
}

/** Run `body` on a fresh environment of `sb`, closed afterwards whatever happens. */
async function withEnvironment(
  ctx: CheckContext,
  sb: Sandbox,
  body: (e: Environment) => Promise<CheckOutcome>,
): Promise<CheckOutcome> {
  const spec = specOf(ctx, sb);
  if ("na" in spec) return spec;
  const e = await environmentsOf(sb, "conformance").openEnvironment(spec);
  try {
    return await body(e);
  } finally {
    await e.close();
  }
}

const exec: Check = (ctx, sb) =>
  withEnvironment(ctx, sb, async (e) => {
    const literal = await e.exec(["printf", "%s|", "a b", "$HOME", "`id`", "*", "x;y"], { timeoutMs: QUICK_MS });
    if (literal.output !== "a b|$HOME|`id`|*|x;y|" || literal.exitCode !== 0)
      return `argv was not passed as it is (a shell saw it?): ${seen(literal)}`;
    const code = await e.exec(["sh", "-c", "exit 7"], { timeoutMs: QUICK_MS });
    if (code.exitCode !== 7) return `exit code 7 not reported: ${seen(code)}`;
    const write = await e.exec(["sh", "-c", `echo kept > ${ctx.filesDir}/state`], { timeoutMs: QUICK_MS });
    const read = await e.exec(["cat", `${ctx.filesDir}/state`], { timeoutMs: QUICK_MS });
    if (write.exitCode !== 0 || read.output !== "kept\n")
      return `state is not kept between commands: ${seen(write)} then ${seen(read)}`;
    const missing = await e.exec(["/no/such/program"], { timeoutMs: QUICK_MS });
    if (missing.exitCode === 0 || missing.infraError !== undefined)
      return `a missing program should be the command's failure, not success nor the backend's: ${seen(missing)}`;
    return null;
  });

/** Content no shell or encoding may change. */
const CONTENT = "line 1\n$(echo pwned) `id` 'q' \"dq\" \\ é 漢\n\n\ttrailing\n";

const files: Check = (ctx, sb) =>
  withEnvironment(ctx, sb, async (e) => {
    const given = await e.exec(["cat", `${ctx.filesDir}/given.txt`], { timeoutMs: QUICK_MS });
    if (given.output !== "from the spec\n") return `the spec's file is not in place: ${seen(given)}`;
    await e.writeFile(`${ctx.filesDir}/in.txt`, CONTENT);
    const cat = await e.exec(["cat", `${ctx.filesDir}/in.txt`], { timeoutMs: QUICK_MS });
    if (cat.output !== CONTENT) return `a written file reads differently inside: ${seen(cat)}`;
    if ((await e.readFile(`${ctx.filesDir}/in.txt`)) !== CONTENT) return "a written file reads back differently";
    const made = await e.exec(["sh", "-c", `printf 'made inside\\n' > ${ctx.filesDir}/out.txt`], {
      timeoutMs: QUICK_MS,
    });
    if (made.exitCode !== 0) return `writing a file inside failed: ${seen(made)}`;
    const out = await e.readFile(`${ctx.filesDir}/out.txt`);
    if (out !== "made inside\n") return `a file made inside reads ${JSON.stringify(out)}`;
    try {
      await e.readFile(`${ctx.filesDir}/absent.txt`);
      return "reading a missing file did not fail";
    } catch {
      return null;
    }
  });

const timeout: Check = (ctx, sb) =>
  withEnvironment(ctx, sb, async (e) => {
    const m = newMarker();
    const run = e.exec(["sh", "-c", `sleep ${m} & sleep ${m}`], { timeoutMs: 10_000 });
    if (ctx.observer !== null) await waitForCount(ctx.observer, m, (c) => c > 0, START_MS, run);
    const o = await run;
    if (!o.timedOut || o.exitCode !== null) return `the command was not stopped at its deadline: ${seen(o)}`;
    if (ctx.observer !== null) {
      const left = await vanished(ctx.observer, [m]);
      if (left !== null) return left;
    }
    const after = await e.exec(["echo", "ran"], { timeoutMs: QUICK_MS });
    if (after.output.includes("ran") || (after.infraError === undefined && after.limitExceeded === undefined))
      return `a command ran after a timeout ended the environment: ${seen(after)}`;
    return null;
  });

/** close() of an environment ends its processes; close() of the sandbox ends the environments left open. */
const teardown: OwnCheck = async (ctx) => {
  const sb = await ctx.create();
  try {
    const spec = specOf(ctx, sb);
    if ("na" in spec) return spec;
    const provider = environmentsOf(sb, "conformance");
    const [m1, m2] = [newMarker(), newMarker()];
    const first = await provider.openEnvironment(spec);
    const bg = await first.exec(["sh", "-c", `setsid sleep ${m1} >/dev/null 2>&1 </dev/null & echo started`], {
      timeoutMs: QUICK_MS,
    });
    if (bg.output !== "started\n") {
      await first.close();
      return `starting a background process failed: ${seen(bg)}`;
    }
    await first.close();
    await first.close(); // idempotent
    const afterClose = await first.exec(["echo", "ran"], { timeoutMs: QUICK_MS });
    if (afterClose.output.includes("ran")) return "a closed environment ran a command";
    const second = await provider.openEnvironment(spec);
    const run = second.exec(["sleep", m2], { timeoutMs: 600_000 });
    if (ctx.observer !== null) await waitForCount(ctx.observer, m2, (c) => c > 0, START_MS, run);
    await sb.close();
    const o = await run;
    if (o.exitCode === 0) return `a command running when its sandbox closed reported success: ${seen(o)}`;
    if (ctx.observer !== null) {
      const left = await vanished(ctx.observer, [m1, m2]);
      if (left !== null) return left;
    }
    return released(ctx);
  } finally {
    await sb.close();
  }
};

export const ENVIRONMENT_CHECKS = {
  "environments.exec": exec,
  "environments.files": files,
  "environments.timeout": timeout,
} satisfies Record<string, Check>;

export const ENVIRONMENT_OWN_CHECKS = { "environments.teardown": teardown } satisfies Record<string, OwnCheck>;
