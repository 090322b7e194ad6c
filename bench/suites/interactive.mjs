/**
 * Rows 12-12d: the interactive layer (src/interactive) against what the same
 * step costs without it, both sides measured in this run and interleaved
 * (the order swaps every pair, so load from elsewhere hits both alike).
 *
 * 12:  one trivial command (`true`, `echo hi`) through the harness's whole
 *      per-command path (shellEnvironment's wrapper → Environment.exec of the
 *      docker sandbox, over the Engine API's socket when DOCKER_HOST is one)
 *      vs a bare `docker exec <container> bash -lc '<cmd>'`
 *      (how mini-swe-agent and Harbor run each command) on a second
 *      environment container opened the same way.
 * 12b: the same in the local backend, when it offers environments (it says so
 *      when it does not): `Environment.exec` of `bash -lc <cmd>` (and the
 *      harness's whole path) vs a bare fork+exec of `bash -c <cmd>`.
 * 12c: one protocol round trip (green → participant → green): the episode's
 *      A2A turn sender against the purple app with a scripted solver that
 *      answers at once, vs a bare loopback POST to a node http server
 *      answering the same bytes.
 * 12d: a whole interactive SWE-bench episode per embedded instance (a
 *      participant applying the gold patch in one command, then `final`)
 *      vs single-shot grading of the same gold patch, both in per-instance
 *      containers through `evaluate`, with the episode's own steps timed.
 * Rows 12 and 12d need a container engine; without one they say why.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST } from "../lib/paths.mjs";
import { summary } from "../lib/stats.mjs";
import { captureRelay } from "../lib/request-capture.mjs";

const imp = (p) => import(join(DIST, p));
const { createSandbox, environmentsOf, DEFAULT_LIMITS } = await imp("sandbox/index.js");
const { engineEnv, probeEngine } = await imp("sandbox/docker/engine.js");
const { dockerBinary } = await imp("sandbox/docker/docker-cli.js");
const { shellEnvironment } = await imp("interactive/shell-environment.js");
const { createA2ATurnSender } = await imp("interactive/a2a-sender.js");
const { textPart, userMessage } = await imp("a2a/shared/parts.js");
const { cardFromToml } = await imp("a2a/shared/card.js");
const { serveApp } = await imp("a2a/server/serve.js");
const { createPurpleApp } = await imp("purple/app.js");
const { silentLogger } = await imp("util/logger.js");

/** The image rows 12 and 12b open (the engine must already hold it). */
export const BASE_IMAGE = "a2a-bench/debian-base:bookworm";
const COMMANDS = ["true", "echo hi"];

const ms = (x) => `${x.toFixed(1)} ms`;
const s1 = (x) => `${(x / 1000).toFixed(2)} s`;

/** Pause after an environment's command, ms: a participant's turn (seconds) stands there in an episode. */
const AFTER_COMMAND_MS = 30;

/**
 * What follows an environment's command before anything else is timed: its disk measurement (awaited by its
 * next call) and a short pause, in which the local environment prepares the next command's process.
 */
async function afterCommand(env) {
  await env.limitProblem();
  await new Promise((r) => setTimeout(r, AFTER_COMMAND_MS));
}

/**
 * Run each side `1 + runs` times, rotating which goes first; the first round is a warm-up.
 * Returns one summary per side, in the order given.
 */
async function interleaved(runs, ...sides) {
  return interleavedSettled(runs, () => undefined, ...sides);
}

/**
 * {@link interleaved}, with `settle()` awaited after each timed side, outside its span: what an environment
 * does after a command (its disk measurement, awaited by its next call) must not overlap the next side's span.
 */
async function interleavedSettled(runs, settle, ...sides) {
  const out = sides.map(() => []);
  for (let i = 0; i < 1 + runs; i++) {
    for (let j = 0; j < sides.length; j++) {
      const k = (i + j) % sides.length;
      const t0 = performance.now();
      await sides[k]();
      const dt = performance.now() - t0;
      await settle();
      if (i > 0) out[k].push(dt);
    }
  }
  return out.map(summary);
}

/** A bare child process, output collected; rejects unless it exits 0 with `want` (unless null) on stdout. */
function bare(file, args, env, want) {
  return new Promise((resolve, reject) =>
    execFile(file, args, { env }, (err, stdout) => {
      if (err) reject(new Error(`${file} ${args.join(" ")}: ${err.message}`));
      else if (want !== null && stdout !== want)
        reject(new Error(`${file} ${args.join(" ")}: printed ${JSON.stringify(stdout)}`));
      else resolve();
    }),
  );
}

/** One command through the harness's per-command path; rejects unless it exits 0 with `want` on stdout. */
async function viaHarness(shell, command, want) {
  const o = await shell.run(command, 60, new AbortController().signal);
  if (o.exitCode !== 0 || o.stdout !== want)
    throw new Error(
      `harness run of ${command}: exit ${o.exitCode}, stdout ${JSON.stringify(o.stdout)} ${o.infraError ?? o.stderr}`,
    );
}

/**
 * Per-command overhead rows (12, 12b): harness path on `envA` vs `bareFor(command)`.
 * The ratio is the overhead (harness − bare) / bare of the medians, per command.
 */
async function commandRows(runs, envA, bareFor, wrappedFor) {
  const shell = shellEnvironment(envA);
  // The wrapper's argv for each command, as the harness builds it (for the split of the overhead).
  const argvOf = async (command) => {
    let seen;
    await shellEnvironment({ exec: (argv, o) => ((seen = argv), envA.exec(argv, o)) }).run(
      command,
      60,
      new AbortController().signal,
    );
    return seen;
  };
  const per = {};
  for (const command of COMMANDS) {
    const want = command === "true" ? "" : "hi\n";
    const sides = [() => viaHarness(shell, command, want), () => bareFor(command, want)];
    if (wrappedFor) {
      const argv = await argvOf(command);
      sides.push(() => wrappedFor(argv));
    }
    const [a, b, c] = await interleavedSettled(runs, () => afterCommand(envA), ...sides);
    per[command] = { a, b, c };
  }
  const overhead = (c) => (per[c].a.median - per[c].b.median) / per[c].b.median;
  return { per, overhead };
}

const commandFigures = (per) =>
  COMMANDS.map((c) => `\`${c}\`: ${ms(per[c].a.median)} (min ${ms(per[c].a.min)})`).join("; ");
const bareFigures = (per) =>
  COMMANDS.map((c) => `\`${c}\`: ${ms(per[c].b.median)} (min ${ms(per[c].b.min)})`).join("; ");

export async function dockerCommandRow(ctx, env, runs) {
  const sandbox = await createSandbox({
    backend: "docker",
    logger: silentLogger(),
    concurrency: 1,
    owner: "bench",
  });
  try {
    const provider = environmentsOf(sandbox, "bench interactive");
    const spec = { image: BASE_IMAGE, owner: "bench-interactive" };
    const t0 = performance.now();
    const envA = await provider.openEnvironment(spec);
    const startMs = performance.now() - t0;
    const envB = await provider.openEnvironment(spec);
    try {
      const docker = dockerBinary(env);
      const { per, overhead } = await commandRows(
        runs,
        envA,
        (command, want) => bare(docker, ["exec", envB.id, "bash", "-lc", command], env, want),
        (argv) => bare(docker, ["exec", envB.id, ...argv], env, null),
      );
      const worst = Math.max(...COMMANDS.map(overhead));
      const { layerBytes } = await imp("sandbox/docker/layer-size.js");
      const sizes = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        if (typeof (await layerBytes(envA.id, env)) !== "number")
          throw new Error("the writable layer could not be measured");
        sizes.push(performance.now() - t);
      }
      const diskMs = summary(sizes).median;
      return {
        id: "12",
        measure:
          "per-command overhead in a docker environment: one trivial command through shellEnvironment's wrapper → Environment.exec (docker sandbox) vs a bare `docker exec <container> bash -lc '<cmd>'` (mini-swe-agent's and Harbor's way)",
        figures: `harness: ${commandFigures(per)}; overhead (harness − bare) / bare: ${COMMANDS.map((c) => `\`${c}\` ${overhead(c).toFixed(3)}×`).join(", ")}; environment start ${ms(startMs)}`,
        baseline: `bare docker exec on a second environment container opened the same way: ${bareFigures(per)}; split of the overhead: the harness's own wrapper argv by a bare docker exec: ${COMMANDS.map((c) => `\`${c}\` ${ms(per[c].c.median)}`).join(", ")} (the rest of the harness's time is this process's side: the process layer and the split of the output)`,
        ratio: worst,
        target: "overhead (harness − bare) / bare of the medians ≤ 0.1× (ratio column: the larger of the two commands)",
        met: worst <= 0.1,
        limit: `both sides run one exec in the container and \`bash -lc\`. The bare side starts the \`docker\` CLI (a Go binary that pings the engine, then creates, starts and inspects the exec); the harness makes those three Engine API calls itself over the unix socket (src/sandbox/docker/api-exec.ts) and keeps stdout and stderr apart from the stream's frames, so its wrapper is one POSIX \`sh\` around coreutils \`timeout\` (the in-shell time limit and the group kill after it; no marker, temporary file, \`tail\` or \`rm\`). Measured split (medians): the wrapper inside the container (its argv by a bare docker exec − bare) ${COMMANDS.map((c) => `\`${c}\` ${ms(per[c].c.median - per[c].b.median)}`).join(", ")}; this process's side (harness − that: the API instead of the CLI, negative when cheaper) ${COMMANDS.map((c) => `\`${c}\` ${ms(per[c].a.median - per[c].c.median)}`).join(", ")}. The disk limit's measurement of the writable layer (one engine call after each command, awaited by the next call: off the command's latency, as a participant's turn separates commands; here awaited after each timed span, then a ${AFTER_COMMAND_MS} ms pause, before the next side's) took ${ms(diskMs)} (median). ${runs} interleaved rounds per command (the three sides in rotated order) after one warm-up round.`,
      };
    } finally {
      await envA.close();
      await envB.close();
    }
  } finally {
    await sandbox.close();
  }
}

export async function localCommandRow(runs) {
  const local = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 1 });
  try {
    if (!local.capabilities.has("environments") || local.openEnvironment === undefined)
      return {
        id: "12b",
        measure: "per-command cost in the local environment vs a bare fork+exec of `bash -c <cmd>`",
        figures: `not available: the local backend offers no environments here (isolation ${local.isolation})`,
        baseline: "—",
        ratio: null,
        target: "—",
        met: null,
      };
    const t0 = performance.now();
    const envA = await environmentsOf(local, "bench interactive").openEnvironment({ owner: "bench-interactive" });
    const startMs = performance.now() - t0;
    // The bare side runs with the environment's own variables (no host profile tweaks from this shell's env).
    const home = mkdtempSync(join(tmpdir(), "a2a-bench-bare-"));
    const bareEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };
    try {
      const shell = shellEnvironment(envA);
      const per = {};
      for (const command of COMMANDS) {
        const want = command === "true" ? "" : "hi\n";
        const direct = async () => {
          const o = await envA.exec(["bash", "-lc", command], { timeoutMs: 60_000 });
          if (o.exitCode !== 0 || o.output !== want) throw new Error(`env.exec ${command}: ${JSON.stringify(o)}`);
        };
        const [a, b, c] = await interleavedSettled(
          runs,
          () => afterCommand(envA),
          () => viaHarness(shell, command, want),
          () => bare("bash", ["-c", command], bareEnv, want),
          direct,
        );
        per[command] = { a, b, c };
      }
      const ratioOf = (c) => per[c].c.median / per[c].b.median;
      const worst = Math.max(...COMMANDS.map(ratioOf));
      return {
        id: "12b",
        measure:
          "per-command cost in a local environment (one bwrap per environment, a resident PID-1 server forking each command): `Environment.exec(['bash','-lc',cmd])` (the shell the harness's wrapper starts; the sandbox shows no /etc/profile, so it reads what `bash -c` reads) vs a bare fork+exec of `bash -c <cmd>` from this process; and the harness's whole path (shellEnvironment's wrapper) beside them",
        figures: `Environment.exec: ${COMMANDS.map((c) => `\`${c}\` ${ms(per[c].c.median)} (min ${ms(per[c].c.min)})`).join("; ")}; env / bare: ${COMMANDS.map((c) => `\`${c}\` ${ratioOf(c).toFixed(3)}×`).join(", ")}; harness path (wrapper): ${commandFigures(per)}; environment start ${ms(startMs)}`,
        baseline: `bare fork+exec of \`bash -c\` on the host (env: PATH, HOME, LANG only): ${bareFigures(per)}`,
        ratio: worst,
        target: "env / bare of the medians ≤ 1.2× (ratio column: the larger of the two commands)",
        met: worst <= 1.2,
        limit: `the environment's side adds a JSON line each way on a pipe and the request's hop to the process the server forked and set up (setsid, rlimits, closing fds) after the previous command, before the same exec of bash; both sides' bash read no profile (the host's \`bash -lc\` would read the host's /etc/profile, which the sandbox does not show: comparing against it flattered the environment). The harness path adds the wrapper (the environment keeps stderr apart, so: one POSIX sh around coreutils timeout, then the same bash). After each timed side, outside its span: the disk limit's measurement (a \`du\` of the tree, awaited by the environment's next call) and a ${AFTER_COMMAND_MS} ms pause, in which the environment forks and prepares the next command's process (its spare: a participant's turn stands there in an episode). ${runs} interleaved rounds per command (three sides, rotated order) after one warm-up round.`,
      };
    } finally {
      await envA.close();
      rmSync(home, { recursive: true, force: true });
    }
  } finally {
    await local.close();
  }
}

/** Answers every turn at once: an `exec_request` of `true` to the task message, `final` to anything else. */
class AtOnceSolver {
  mode = "scripted";
  solve(input) {
    let kind;
    try {
      kind = JSON.parse(input.text).kind;
    } catch {
      kind = undefined;
    }
    const text = JSON.stringify(kind === "task" ? { kind: "exec_request", command: "true" } : { kind: "final" });
    return Promise.resolve({ text, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  }
}

/** Serve on 127.0.0.1:0; resolves with the server's URL and closer. */
function serveBare(handler) {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.keepAliveTimeout = 60_000;
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    );
  });
}

async function roundTripRow(runs) {
  const served = await serveApp("127.0.0.1", 0, (port) =>
    createPurpleApp({
      card: cardFromToml({ name: "bench-at-once", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] }),
      solver: new AtOnceSolver(),
    }),
  );
  const url = `http://127.0.0.1:${served.port}/`;
  const task = JSON.stringify({
    kind: "task",
    protocol: "terminal-bench-shell-v1",
    instruction: "Say you are done.",
    benchmark: "bench",
    workdir: "/testbed",
    max_turns: 100,
  });
  const message = () => userMessage([textPart(task)]);
  let bareServer;
  try {
    // One send through a relay that keeps it: the request the sender makes and the bytes it gets back.
    const relay = await captureRelay(url);
    try {
      await createA2ATurnSender({ url: relay.url }).send(message(), new AbortController().signal);
    } finally {
      await relay.close();
    }
    const first = relay.first();
    const captured = first && { request: first.body, reply: first.reply, type: first.type };
    if (!captured) throw new Error("the turn sender's POST was not seen");
    const replyBytes = Buffer.from(captured.reply);
    bareServer = await serveBare((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, {
          "content-type": captured.type ?? "application/json",
          "content-length": replyBytes.length,
        });
        res.end(replyBytes);
      });
    });
    const sender = createA2ATurnSender({ url });
    const bareUrl = bareServer.url;
    const [ta, tb] = await interleaved(
      runs,
      async () => {
        const reply = await sender.send(message(), new AbortController().signal);
        if (reply === undefined) throw new Error("no reply");
      },
      async () => {
        const res = await fetch(bareUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: captured.request,
        });
        const text = await res.text();
        if (text.length !== captured.reply.length) throw new Error("bare server: wrong reply");
      },
    );
    const r = { a: ta, b: tb };
    return {
      id: "12c",
      measure:
        "one protocol round trip (green → participant → green, the participant answering at once): the episode's A2A turn sender (`message/send`, blocking) to the purple app with a scripted solver, vs a bare loopback POST to a node http server answering the same bytes",
      figures: `turn sender: ${ms(r.a.median)} (min ${ms(r.a.min)}); request ${captured.request.length} B, reply ${replyBytes.length} B`,
      baseline: `bare POST (fetch → node http, keep-alive): ${ms(r.b.median)} (min ${ms(r.b.min)})`,
      ratio: r.a.median / r.b.median,
      target: "—",
      met: null,
      limit: `the harness's side is the A2A stack end to end: the SDK client's JSON-RPC encoding and reply parsing, the capped reply body, and in the purple app the JSON-RPC handler, a task created and stored, the executor and its one final event; the bare side is one HTTP exchange. Both servers in this process, on loopback; ${runs} interleaved pairs after one warm-up pair.`,
    };
  } finally {
    await bareServer?.close();
    await served.close();
  }
}

async function episodeRow(ctx, env, runs) {
  const { ensureSampleDataset } = await imp("benchmarks/swebench/sample-dataset.js");
  const { createSwebenchBenchmark } = await imp("benchmarks/swebench/definition.js");
  const { buildSampleImages, SAMPLE_IMAGE_TEMPLATE } = await imp("benchmarks/swebench/container/sample-images.js");
  const { freshRepository, extractChange } = await imp("benchmarks/swebench/episode.js");
  const { imageFor } = await imp("benchmarks/swebench/container/image-name.js");
  const { resolveRunOptions } = await imp("runner/options.js");
  const { offeredInteractions } = await imp("benchmarks/index.js");
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-interactive-"));
  const sandbox = await createSandbox({
    backend: "docker",
    logger: silentLogger(),
    concurrency: 1,
    owner: "bench",
  });
  try {
    const ds = await ensureSampleDataset(join(tmp, "cache"));
    const tb = performance.now();
    await buildSampleImages(ds, env);
    const buildMs = performance.now() - tb;
    ctx.log(`interactive: sample images ready in ${s1(buildMs)}`);
    const preds = join(tmp, "gold.json");
    writeFileSync(
      preds,
      JSON.stringify(
        ds.instances.map((i) => ({ instance_id: i.instance_id, model_name_or_path: "gold", model_patch: i.patch })),
      ),
    );
    /** The participant: the gold patch applied in one command (base64 through `git apply`), then `final`. */
    const gold = new Map(ds.instances.map((i) => [i.instance_id, Buffer.from(i.patch).toString("base64")]));
    const solver = {
      mode: "scripted",
      solve(input) {
        const m = JSON.parse(input.text);
        const text =
          m.kind === "task"
            ? JSON.stringify({
                kind: "exec_request",
                command: `echo ${gold.get(m.instance_id)} | base64 -d > /tmp/gold.patch && git apply /tmp/gold.patch`,
              })
            : JSON.stringify({ kind: "final" });
        return Promise.resolve({ text, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
      },
    };
    const served = await serveApp("127.0.0.1", 0, (port) =>
      createPurpleApp({
        card: cardFromToml({ name: "bench-gold", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] }),
        solver,
      }),
    );
    try {
      let k = 0;
      const evaluate = async (inst, interactive) => {
        const runId = `bench-int-${k++}`;
        const options = resolveRunOptions(
          offeredInteractions,
          {
            benchmark: "swebench",
            run_id: runId,
            dataset: "sample",
            sandbox: "docker",
            per_task_timeout_seconds: 120,
            concurrency: 1,
            swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
            ...(interactive
              ? {
                  agent: `http://127.0.0.1:${served.port}/`,
                  interaction: "interactive",
                  max_turns: 5,
                  command_timeout_seconds: 30,
                }
              : { predictions: preds }),
          },
          { out: join(tmp, runId) },
        );
        const row = await createSwebenchBenchmark().evaluate(
          { id: inst.instance_id, instance: inst },
          {
            options,
            sandbox,
            participant: null,
            logger: silentLogger(),
            signal: new AbortController().signal,
            workDir: join(tmp, runId, "work"),
          },
        );
        rmSync(join(tmp, runId), { recursive: true, force: true });
        if (row.status !== "RESOLVED_FULL")
          throw new Error(
            `${interactive ? "interactive" : "single-shot"} ${inst.instance_id}: ${row.status}: ${row.error}`,
          );
      };
      const whole = { a: [], b: [] };
      const steps = { start: [], scrub: [], diff: [], close: [] };
      const provider = environmentsOf(sandbox, "bench interactive");
      const stepCtx = { signal: new AbortController().signal };
      let pair = 0;
      for (let i = 0; i < 1 + runs; i++) {
        for (const inst of ds.instances) {
          const order = pair++ % 2 === 0 ? [true, false] : [false, true];
          for (const interactive of order) {
            const t0 = performance.now();
            await evaluate(inst, interactive);
            if (i > 0) whole[interactive ? "a" : "b"].push(performance.now() - t0);
          }
          const t0 = performance.now();
          const e = await provider.openEnvironment({
            image: imageFor(inst.instance_id, { template: SAMPLE_IMAGE_TEMPLATE }),
            owner: "bench-interactive",
          });
          const t1 = performance.now();
          const fresh = await freshRepository(e, inst, stepCtx);
          const t2 = performance.now();
          await extractChange(e, inst, fresh, stepCtx);
          const t3 = performance.now();
          await e.close();
          const t4 = performance.now();
          if (i > 0) {
            steps.start.push(t1 - t0);
            steps.scrub.push(t2 - t1);
            steps.diff.push(t3 - t2);
            steps.close.push(t4 - t3);
          }
        }
      }
      const a = summary(whole.a);
      const b = summary(whole.b);
      const st = Object.fromEntries(Object.entries(steps).map(([key, v]) => [key, summary(v).median]));
      const n = ds.instances.length;
      return {
        id: "12d",
        measure: `whole interactive SWE-bench episode per instance (embedded set, ${n} instances; the participant applies the gold patch in one command, then \`final\`), through \`evaluate\` on the docker sandbox, vs single-shot grading of the same gold patch`,
        figures: `interactive: ${s1(a.median)} per instance; its own steps (medians): environment start ${ms(st.start)}, history scrub ${ms(st.scrub)}, taking the diff ${ms(st.diff)}, environment close ${ms(st.close)}; overhead per instance ${s1(a.median - b.median)}`,
        baseline: `single-shot gold through \`evaluate\` (one fresh grading environment): ${s1(b.median)} per instance`,
        ratio: a.median / b.median,
        target: "—",
        met: null,
        limit: `an interactive instance pays a whole environment more than single-shot (start, scrub, the participant's commands, the diff, close) on top of the same fresh grading environment; sample images built (or found cached) in ${s1(buildMs)} before timing. ${runs} interleaved pairs per instance after one warm-up round.`,
      };
    } finally {
      await served.close();
    }
  } finally {
    await sandbox.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

const skipped = (id, measure, reason) => ({
  id,
  measure,
  figures: `skipped: ${reason}`,
  baseline: "—",
  ratio: null,
  target: "—",
  met: null,
});

export async function runInteractive(ctx) {
  const runs = ctx.quick ? 10 : 30;
  const env = engineEnv();
  const probe = await probeEngine(env);
  const rows = [];
  if (probe.ok) {
    ctx.log("interactive: per-command overhead, docker");
    rows.push(await dockerCommandRow(ctx, env, runs));
  } else rows.push(skipped("12", "per-command overhead in a docker environment", probe.reason));
  ctx.log("interactive: per-command overhead, local");
  rows.push(await localCommandRow(runs));
  ctx.log("interactive: protocol round trip");
  rows.push(await roundTripRow(ctx.quick ? 50 : 200));
  if (probe.ok) {
    ctx.log("interactive: whole SWE-bench episodes");
    rows.push(await episodeRow(ctx, env, ctx.quick ? 2 : 3));
  } else rows.push(skipped("12d", "whole interactive SWE-bench episode overhead per instance", probe.reason));
  return rows;
}
