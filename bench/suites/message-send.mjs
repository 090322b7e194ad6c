/**
 * Rows 3-3c: `message/send` to the purple echo agent (the real CLI process) vs
 * a bare Express JSON-RPC echo (bench/servers/bare-echo.mjs), each its own
 * process, under the same load generator in a third process (autocannon,
 * bench/lib/load.mjs) at 1 / 16 / 64 connections, interleaved run by run. Each
 * row states the bare echo's own ceiling under that generator, so a saturated
 * client cannot pass for a fast server. Then one more purple, under
 * `--cpu-prof` and the same load at 16 connections: its top self-time frames go
 * to the bench's output directory (not to git) and its buckets into row 3's limit.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH, CLI } from "../lib/paths.mjs";
import { freePort, ok200, start, stop, waitFor } from "../lib/proc.mjs";
import { compareUnderLoad, loadFigures, loadRun, ratioFigures, servingMet, SERVING_TARGET } from "../lib/load.mjs";
import { formatFrames, formatProfile, summarizeProfileDir, topSelfFrames } from "../lib/cpu-profile.mjs";

/** The request every run sends (a v0.3 `message/send`, as AgentBeats' client sends it). */
export const SEND_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: {
    message: { kind: "message", role: "user", messageId: "bench-send", parts: [{ kind: "text", text: "ping" }] },
  },
});

async function servePurple(extraNodeArgs = []) {
  const port = await freePort();
  const child = start(process.execPath, [...extraNodeArgs, CLI, "purple", "--mode", "echo", "--port", String(port)], {
    env: { ...process.env, LOG_LEVEL: "silent" },
  });
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(() => ok200(`${url}.well-known/agent-card.json`), { what: "purple card", timeoutMs: 15000 });
  return { url, child };
}

async function serveBareEcho() {
  const port = await freePort();
  const child = start(process.execPath, [join(BENCH, "servers", "bare-echo.mjs"), String(port)]);
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(
    async () => {
      try {
        const r = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: SEND_BODY,
        });
        return r.status === 200;
      } catch {
        return false;
      }
    },
    { what: "bare echo" },
  );
  return { url, child };
}

/** Profile the purple under load: top self-time frames (file) and buckets (row text). */
async function profileUnderLoad(ctx) {
  const profDir = mkdtempSync(join(tmpdir(), "a2a-bench-prof-"));
  const p = await servePurple(["--cpu-prof", `--cpu-prof-dir=${profDir}`]);
  try {
    const load = await loadRun({
      url: p.url,
      method: "POST",
      body: SEND_BODY,
      expect: "completed",
      connections: 16,
      durationS: ctx.quick ? 3 : 5,
    });
    await stop(p.child, "SIGINT", 15_000);
    const buckets = summarizeProfileDir(profDir);
    const top = topSelfFrames(profDir, 40);
    mkdirSync(ctx.outDir, { recursive: true });
    const file = join(ctx.outDir, "purple-message-send.cpuprofile.txt");
    writeFileSync(
      file,
      `purple echo message/send under autocannon, 16 connections, ${load.requests} requests (${loadFigures(load)})\nself time per frame, whole process life:\n${formatFrames(top)}\n`,
    );
    ctx.log(`message/send: purple CPU profile summary in ${file}`);
    return { buckets, top, requests: load.requests, file };
  } catch (e) {
    ctx.log(`message/send: profile not taken (${e.message}); the rows keep their timings`);
    return null;
  } finally {
    await stop(p.child);
    rmSync(profDir, { recursive: true, force: true });
  }
}

export async function runMessageSend(ctx) {
  ctx.log("message/send: purple echo vs bare echo, autocannon in its own process, interleaved");
  const purple = await servePurple();
  const bare = await serveBareEcho();
  let res;
  try {
    res = await compareUnderLoad(
      { url: purple.url, method: "POST", body: SEND_BODY, expect: '"completed"', pid: purple.child.pid },
      { url: bare.url, method: "POST", body: SEND_BODY, expect: '"ping"', pid: bare.child.pid },
      { reps: ctx.quick ? 3 : 5, durationS: ctx.quick ? 1 : 2 },
    );
  } finally {
    await stop(purple.child);
    await stop(bare.child);
  }
  const prof = await profileUnderLoad(ctx);
  const ids = { 1: "3", 16: "3b", 64: "3c" };
  return [1, 16, 64].map((c) => ({
    id: ids[c],
    measure: `\`message/send\` → purple echo (CLI process), ${c} connection${c > 1 ? "s" : ""}, autocannon in its own process`,
    figures: `${loadFigures(res[c].ours)}; ${ratioFigures(res[c])}`,
    baseline: `bare Express JSON-RPC echo under the same generator (its ceiling here): ${loadFigures(res[c].bare)}`,
    ratio: res[c].rpsRatio,
    target: `req/s ≥ ${SERVING_TARGET.minRps}× and p50 ≤ ${SERVING_TARGET.maxP50}× the bare echo`,
    met: servingMet(res[c]),
    limit:
      c === 16
        ? `ratio = throughput ratio (median of interleaved pairs). The floor is the bare echo: one loopback round trip, express.json, one res.json. The purple adds the A2A SDK's request pipeline (0.3 ↔ 1.0 conversion, result manager, task store load/save) and its own body guard; CPU profile of a purple under this load (${prof ? `${prof.requests} requests, self time by bucket: ${formatProfile(prof.buckets)}; top frames in the bench output` : "not taken"})`
        : `same pipeline as row 3b; each side a single node process on a shared 2-core box, the generator a third`,
  }));
}
