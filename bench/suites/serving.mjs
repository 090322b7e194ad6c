/**
 * Rows 10-11b: the agents against bare Express, each its own process.
 * - Rows 10/10b: the green agent's card GET and `tasks/get` (the real green app,
 *   bench/servers/green-fixture.mjs, one assessment running) vs a bare Express
 *   route answering the same JSON (bench/servers/bare-json.mjs, fed the very
 *   bytes the green answered), under autocannon in a third process at 1 / 16 /
 *   64 connections, interleaved run by run.
 * - Rows 11/11b: start-up, spawn → first 200 on the card (polled every millisecond),
 *   for the green and purple CLIs vs the bare Express app serving the same card;
 *   the three started in turn (order rotated) and the ratio taken within each turn.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH, CLI } from "../lib/paths.mjs";
import { freePort, ok200, start, stop, waitFor } from "../lib/proc.mjs";
import { median } from "../lib/stats.mjs";
import { compareUnderLoad, loadFigures, loadRun, ratioFigures, servingMet, SERVING_TARGET } from "../lib/load.mjs";
import { formatFrames, formatProfile, summarizeProfileDir, topSelfFrames } from "../lib/cpu-profile.mjs";

const CARD_PATH = ".well-known/agent-card.json";
const ASSESSMENT = JSON.stringify({
  participants: { agent: "http://127.0.0.1:9/" },
  config: { benchmark: "humaneval" },
});

async function post(url, body) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return r.json();
}

/** The green app with a runner that stays alive, one assessment accepted (non-blocking): its task id. */
async function greenWithTask(work, nodeArgs = []) {
  const port = await freePort();
  const child = start(
    process.execPath,
    [
      ...nodeArgs,
      join(BENCH, "servers", "green-fixture.mjs"),
      String(port),
      join(BENCH, "fixtures", "runner-stays.mjs"),
    ],
    { env: { ...process.env, GREEN_RESULTS_DIR: join(work, "results"), LOG_LEVEL: "silent" } },
  );
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(() => ok200(`${url}${CARD_PATH}`), { what: "green card", timeoutMs: 15000 });
  const sent = await post(
    url,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: {
          kind: "message",
          role: "user",
          messageId: "bench-serving",
          parts: [{ kind: "text", text: ASSESSMENT }],
        },
        configuration: { blocking: false },
      },
    }),
  );
  const taskId = sent.result?.id;
  if (typeof taskId !== "string")
    throw new Error(`green did not accept the assessment: ${JSON.stringify(sent).slice(0, 300)}`);
  return { url, child, taskId };
}

async function bareJson(cardFile, resultFile) {
  const port = await freePort();
  const child = start(process.execPath, [join(BENCH, "servers", "bare-json.mjs"), String(port), cardFile, resultFile]);
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(() => ok200(`${url}${CARD_PATH}`), { what: "bare json" });
  return { url, child };
}

async function greenRoutes(ctx, work) {
  const green = await greenWithTask(work);
  let bare;
  try {
    const cardFile = join(work, "card.json");
    const resultFile = join(work, "task.json");
    const card = await (await fetch(`${green.url}${CARD_PATH}`)).text();
    const getBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: green.taskId } });
    const got = await post(green.url, getBody);
    if (!got.result) throw new Error(`tasks/get failed: ${JSON.stringify(got).slice(0, 300)}`);
    writeFileSync(cardFile, card);
    writeFileSync(resultFile, JSON.stringify(got.result));
    bare = await bareJson(cardFile, resultFile);
    const opts = { reps: ctx.quick ? 3 : 5, durationS: ctx.quick ? 1 : 2 };
    ctx.log("serving: green card GET vs bare Express");
    const cardRes = await compareUnderLoad(
      { url: `${green.url}${CARD_PATH}`, expect: '"name"', pid: green.child.pid },
      { url: `${bare.url}${CARD_PATH}`, expect: '"name"', pid: bare.child.pid },
      opts,
    );
    ctx.log("serving: green tasks/get vs bare Express");
    const getRes = await compareUnderLoad(
      { url: green.url, method: "POST", body: getBody, expect: green.taskId, pid: green.child.pid },
      { url: bare.url, method: "POST", body: getBody, expect: green.taskId, pid: bare.child.pid },
      opts,
    );
    return { card: cardRes, get: getRes, cardBytes: card.length, taskBytes: JSON.stringify(got.result).length };
  } finally {
    await stop(green.child);
    if (bare) await stop(bare.child);
  }
}

/** The green under `--cpu-prof` and `tasks/get` load at 16 connections: its buckets (row text) and top frames (file). */
async function profileGreenGet(ctx, work) {
  const profDir = mkdtempSync(join(tmpdir(), "a2a-bench-prof-"));
  let green;
  try {
    green = await greenWithTask(join(work, "prof"), ["--cpu-prof", `--cpu-prof-dir=${profDir}`]);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: green.taskId } });
    const load = await loadRun({
      url: green.url,
      method: "POST",
      body,
      expect: green.taskId,
      connections: 16,
      durationS: ctx.quick ? 3 : 5,
    });
    await stop(green.child, "SIGTERM", 15_000); // the fixture exits 0 on SIGTERM: the profile is written
    const buckets = summarizeProfileDir(profDir);
    mkdirSync(ctx.outDir, { recursive: true });
    const file = join(ctx.outDir, "green-tasks-get.cpuprofile.txt");
    writeFileSync(
      file,
      `green tasks/get under autocannon, 16 connections, ${load.requests} requests (${loadFigures(load)})\nself time per frame, whole process life:\n${formatFrames(topSelfFrames(profDir, 40))}\n`,
    );
    ctx.log(`serving: green tasks/get CPU profile summary in ${file}`);
    return { buckets, requests: load.requests };
  } catch (e) {
    ctx.log(`serving: green profile not taken (${e.message})`);
    return null;
  } finally {
    if (green) await stop(green.child);
    rmSync(profDir, { recursive: true, force: true });
  }
}

/** One green CLI start under `--cpu-prof`: self time by bucket up to the first card poll it answered. */
async function profileGreenStart(ctx, work) {
  const profDir = mkdtempSync(join(tmpdir(), "a2a-bench-prof-"));
  const port = await freePort();
  const child = start(
    process.execPath,
    ["--cpu-prof", `--cpu-prof-dir=${profDir}`, CLI, "green", "--port", String(port)],
    {
      env: { ...process.env, LOG_LEVEL: "silent", GREEN_RESULTS_DIR: join(work, "cold-prof") },
    },
  );
  try {
    await waitFor(() => ok200(`http://127.0.0.1:${port}/${CARD_PATH}`, 200), { everyMs: 1, timeoutMs: 20000 });
    await stop(child, "SIGINT", 15_000); // the CLI's shutdown handlers exit normally: the profile is written
    return summarizeProfileDir(profDir, { untilFirstRequest: true });
  } catch (e) {
    ctx.log(`serving: green start profile not taken (${e.message})`);
    return null;
  } finally {
    await stop(child);
    rmSync(profDir, { recursive: true, force: true });
  }
}

/** Spawn → first 200 on the card (polled every ms, 200 ms per poll), then stop the process group. */
async function cardServedMs(file, args, env) {
  const port = await freePort();
  const t0 = performance.now();
  const child = start(process.execPath, [file, ...args(port)], {
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
  });
  try {
    await waitFor(() => ok200(`http://127.0.0.1:${port}/${CARD_PATH}`, 200), {
      everyMs: 1,
      what: "card",
      timeoutMs: 20000,
    });
    return performance.now() - t0;
  } finally {
    await stop(child);
  }
}

export async function startUp(ctx, work) {
  const cardFile = join(work, "card.json");
  const kinds = {
    bare: () => cardServedMs(join(BENCH, "servers", "bare-json.mjs"), (p) => [String(p), cardFile]),
    green: () => cardServedMs(CLI, (p) => ["green", "--port", String(p)], { GREEN_RESULTS_DIR: join(work, "cold") }),
    purple: () => cardServedMs(CLI, (p) => ["purple", "--port", String(p)]),
  };
  const names = Object.keys(kinds);
  for (const k of names) await kinds[k](); // warm-up: page cache
  const runs = { bare: [], green: [], purple: [] };
  const reps = ctx.quick ? 3 : 15;
  for (let i = 0; i < reps; i++) {
    const order = names.map((_, j) => names[(i + j) % names.length]);
    for (const k of order) runs[k].push(await kinds[k]());
  }
  const ratio = (k) => median(runs[k].map((x, i) => x / runs.bare[i]));
  const summary = (k) => ({ median: median(runs[k]), min: Math.min(...runs[k]), max: Math.max(...runs[k]) });
  return {
    bare: summary("bare"),
    green: summary("green"),
    purple: summary("purple"),
    greenRatio: ratio("green"),
    purpleRatio: ratio("purple"),
    reps,
  };
}

export async function runServing(ctx) {
  const work = mkdtempSync(join(tmpdir(), "a2a-bench-serving-"));
  try {
    const r = await greenRoutes(ctx, work);
    const getProf = await profileGreenGet(ctx, work);
    ctx.log("serving: start-up, green / purple / bare Express, rotated turns");
    const s = await startUp(ctx, work);
    const startProf = await profileGreenStart(ctx, work);
    const rows = [];
    const target = `req/s ≥ ${SERVING_TARGET.minRps}× and p50 ≤ ${SERVING_TARGET.maxP50}× the bare route`;
    for (const [key, id, what, bytes] of [
      ["card", "10", "green agent card GET", r.cardBytes],
      ["get", "10b", "green `tasks/get` (one assessment running)", r.taskBytes],
    ]) {
      const res = r[key];
      rows.push({
        id,
        measure: `${what}, 1 / 16 / 64 connections, autocannon in its own process`,
        figures: [1, 16, 64].map((c) => `c${c}: ${loadFigures(res[c].ours)} (${ratioFigures(res[c])})`).join("; "),
        baseline: `bare Express route answering the same ${bytes} bytes of JSON, same generator: ${[1, 16, 64].map((c) => `c${c}: ${loadFigures(res[c].bare)}`).join("; ")}`,
        ratio: Math.min(...[1, 16, 64].map((c) => res[c].rpsRatio)),
        target: `${target}, at each level (ratio: the lowest req/s ratio)`,
        met: [1, 16, 64].every((c) => servingMet(res[c])),
        limit: `the floor is the bare route: one loopback round trip and one res.json (plus express.json for tasks/get)${
          key === "get"
            ? `; CPU profile of the green under this load at 16 connections (${getProf ? `${getProf.requests} requests, self time by bucket: ${formatProfile(getProf.buckets)}; top frames in the bench output` : "not taken"})`
            : ""
        }`,
      });
    }
    const f = (x) => `median ${x.median.toFixed(0)} ms (min ${x.min.toFixed(0)}, max ${x.max.toFixed(0)})`;
    for (const [k, id] of [
      ["green", "11"],
      ["purple", "11b"],
    ]) {
      rows.push({
        id,
        measure: `${k} agent start (\`node dist/cli.js ${k} --port P\`) → card served, vs a bare Express start serving the same card`,
        figures: `${f(s[k])} over ${s.reps} turns`,
        baseline: `bare Express (\`bench/servers/bare-json.mjs\`): ${f(s.bare)}`,
        ratio: s[`${k}Ratio`],
        target: "≤ 1.2× the bare Express start (median of per-turn ratios)",
        met: s[`${k}Ratio`] <= 1.2,
        limit: `node start-up + loading the CLI bundle's serving code + listen; slow work (the green's isolation probe) runs after the port is bound${
          k === "green"
            ? `; one green start under --cpu-prof, self time by bucket up to the first card poll answered: ${startProf ? `${startProf.totalMs.toFixed(0)} ms busy: ${formatProfile(startProf, 7)}` : "not taken"}`
            : ""
        }`,
      });
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
