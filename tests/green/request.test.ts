import { afterEach, describe, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { dataPart, partData, partText, userMessage } from "../../src/a2a/shared/parts.js";
import { parseAssessmentRequest } from "../../src/green/request.js";
import { validateAssessmentConfig } from "../../src/green/config-validation.js";
import { assessment, fixtureRunner, requestOf, startGreen, type StartedGreen } from "./helpers.js";

describe("parseAssessmentRequest", () => {
  test("accepts the AgentBeats shape in a TextPart and the smi shape in a DataPart", () => {
    const a = parseAssessmentRequest(requestOf(assessment()).message!);
    expect(a).toMatchObject({ ok: true, request: { participants: { agent: "http://127.0.0.1:9/" } } });
    const b = parseAssessmentRequest(userMessage([dataPart({ config: { benchmark: "humaneval" } })]));
    expect(b).toMatchObject({ ok: true, request: { participants: {}, config: { benchmark: "humaneval" } } });
  });
  test("lists every problem", () => {
    const r = parseAssessmentRequest(requestOf({ participants: { agent: "ftp://x" }, extra: 1 }).message!);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toHaveLength(3);
  });
});

describe("validateAssessmentConfig", () => {
  const roots = ["/srv/allowed"];
  test("names unknown keys and wrong types", () => {
    const r = validateAssessmentConfig(
      { benchmark: "humaneval", bogus: 1, samples: "x" },
      { agent: "http://a/" },
      roots,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems.join("\n")).toMatch(/unknown key "bogus"/);
      expect(r.problems.join("\n")).toMatch(/config\/samples: must be integer/);
    }
  });
  test("paths must be inside the allowed roots; dataset names are not paths", () => {
    const bad = validateAssessmentConfig(
      { benchmark: "swebench", predictions: "/etc/passwd" },
      {},
      roots,
      "/srv/allowed",
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems[0]).toMatch(/config\.predictions: path "\/etc\/passwd" is outside the allowed roots/);
    const ok = validateAssessmentConfig(
      { benchmark: "swebench", predictions: "preds.jsonl", dataset: "sample" },
      {},
      roots,
      "/srv/allowed",
    );
    expect(ok).toMatchObject({
      ok: true,
      value: { config: { predictions: "/srv/allowed/preds.jsonl", dataset: "sample" } },
    });
    if (ok.ok) expect(ok.value.config.agent).toBeUndefined(); // no participant
    // A HumanEval samples file also replaces the participant.
    const he = validateAssessmentConfig(
      { benchmark: "humaneval", predictions: "samples.jsonl" },
      {},
      roots,
      "/srv/allowed",
    );
    expect(he).toMatchObject({
      ok: true,
      value: { config: { predictions: "/srv/allowed/samples.jsonl" } },
    });
    if (he.ok) expect(he.value.config.agent).toBeUndefined();
  });
  test("operator-only runner options are refused in a request, each named", () => {
    const r = validateAssessmentConfig(
      {
        benchmark: "sparc",
        sparc_config: "c.json",
        sparc_npm_registry: "http://evil/",
        sparc_package_cache_dir: "/etc",
      },
      {},
      roots,
      "/srv/allowed",
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toContain("config.sparc_npm_registry: operator-only setting, not accepted in a request");
      expect(r.problems).toContain("config.sparc_package_cache_dir: operator-only setting, not accepted in a request");
    }
  });
  test("a participant named for a run that never asks it is refused (its score would not be its own)", () => {
    const r = validateAssessmentConfig({ benchmark: "sparc", sparc_config: "c.json" }, { agent: "http://a/" }, roots);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.join("\n")).toMatch(/never asks a participant/);
    const alone = validateAssessmentConfig({ benchmark: "sparc", sparc_config: "c.json" }, {}, roots, "/srv/allowed");
    expect(alone.ok, alone.ok ? "" : alone.problems.join("; ")).toBe(true);
  });
  test("participant: role agent, else the single one, else rejected when needed", () => {
    expect(validateAssessmentConfig({ benchmark: "humaneval" }, { solver: "http://s/" }, roots)).toMatchObject({
      ok: true,
      value: { config: { agent: "http://s/" } },
    });
    const none = validateAssessmentConfig({ benchmark: "humaneval" }, {}, roots);
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.problems[0]).toMatch(/needs a participant/);
    const two = validateAssessmentConfig({ benchmark: "humaneval" }, { a: "http://a/", b: "http://b/" }, roots);
    expect(two.ok).toBe(false);
  });
});

describe("a request's interaction must be one the benchmark offers", () => {
  test("interactive for a single-shot benchmark is refused, naming config.interaction and the benchmark", () => {
    const r = validateAssessmentConfig(
      { benchmark: "redcode", interaction: "interactive" },
      { agent: "http://127.0.0.1:9/" },
      ["/srv/allowed"],
      "/srv/allowed",
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems).toEqual([
        'config.interaction "interactive" is not offered by benchmark "redcode" (it offers: single_shot)',
      ]);
  });
});

describe("humaneval's interaction", () => {
  test("interactive is accepted for humaneval (its limits with it); the default stays single_shot", () => {
    const on = validateAssessmentConfig(
      { benchmark: "humaneval", interaction: "interactive", max_turns: 12 },
      { agent: "http://127.0.0.1:9/" },
      ["/srv/allowed"],
      "/srv/allowed",
    );
    expect(on.ok).toBe(true);
    if (on.ok) expect(on.value.config).toMatchObject({ interaction: "interactive", max_turns: 12 });
    const off = validateAssessmentConfig(
      { benchmark: "humaneval", sandbox: "docker" },
      { agent: "http://127.0.0.1:9/" },
      ["/srv/allowed"],
      "/srv/allowed",
    );
    expect(off.ok && off.value.config.interaction).toBe("single_shot");
  });
});

describe("a request that names a participant must assess it", () => {
  const roots = ["/srv/allowed"];
  const cwd = "/srv/allowed";
  test("participants with config.predictions are refused, naming both fields", () => {
    const r = validateAssessmentConfig(
      { benchmark: "humaneval", predictions: "gold.jsonl" },
      { agent: "http://127.0.0.1:9/" },
      roots,
      cwd,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatch(/^participants and config\.predictions cannot be given together/);
    }
  });
  test("config.agent with predictions, and a participant with RedCode's replay_dataset_code, are refused too", () => {
    const agent = validateAssessmentConfig(
      { benchmark: "swebench", agent: "http://127.0.0.1:9/", predictions: "p.jsonl" },
      {},
      roots,
      cwd,
    );
    expect(agent.ok).toBe(false);
    if (!agent.ok) expect(agent.problems[0]).toMatch(/^config\.agent and config\.predictions cannot be given together/);
    const replay = validateAssessmentConfig(
      { benchmark: "redcode", replay_dataset_code: true },
      { agent: "http://127.0.0.1:9/" },
      roots,
      cwd,
    );
    expect(replay.ok).toBe(false);
    if (!replay.ok) expect(replay.problems[0]).toMatch(/participants and config\.replay_dataset_code cannot be given/);
  });
  test("config.agent may not point anywhere but at a participant named in participants", () => {
    const other = validateAssessmentConfig(
      { benchmark: "humaneval", agent: "http://127.0.0.1:6379/" },
      { agent: "http://127.0.0.1:9/" },
      roots,
    );
    expect(other.ok).toBe(false);
    if (!other.ok)
      expect(other.problems[0]).toMatch(/config\.agent "http:\/\/127\.0\.0\.1:6379\/" is not the participant/);
    const unnamed = validateAssessmentConfig(
      { benchmark: "humaneval", agent: "http://127.0.0.1:6379/" },
      { a: "http://a/", b: "http://b/" },
      roots,
    );
    expect(unnamed.ok).toBe(false);
    // The same URL, or one of several roles chosen by config.agent, is fine.
    expect(
      validateAssessmentConfig(
        { benchmark: "humaneval", agent: "http://b/" },
        { a: "http://a/", b: "http://b/" },
        roots,
      ),
    ).toMatchObject({ ok: true, value: { config: { agent: "http://b/" } } });
    expect(
      validateAssessmentConfig({ benchmark: "humaneval", agent: "http://a/" }, { agent: "http://a/" }, roots),
    ).toMatchObject({ ok: true, value: { config: { agent: "http://a/" } } });
  });
});

describe("invalid requests end rejected with reasons (never a 500)", () => {
  let green: StartedGreen | undefined;
  afterEach(async () => {
    await green?.close();
    green = undefined;
  });

  test.each([
    ["not JSON", requestOf(undefined, "run humaneval please"), /not JSON/],
    ["missing config", requestOf({ participants: { agent: "http://127.0.0.1:9/" } }), /missing "config"/],
    ["unknown key", requestOf(assessment({ bogus: true })), /unknown key "bogus"/],
    [
      "wrong types",
      requestOf(assessment({ samples: "ten", seed: -1 })),
      /samples: must be integer.*seed: must be >= 0/,
    ],
    ["no participant", requestOf({ config: { benchmark: "humaneval" } }), /needs a participant/],
  ])("%s", async (_name, req, reason) => {
    green ??= await startGreen(fixtureRunner("events.mjs"));
    for (const wire of ["1.0", "0.3"] as const) {
      const client = await createA2AClient(green.url, wire);
      const task = (await client.sendMessage(req)) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      const parts = task.status?.message?.parts ?? [];
      expect(parts.map(partText).join(" ")).toMatch(reason);
      expect(partData(parts[1]!)?.["problems"]).toBeInstanceOf(Array);
    }
  });

  test("raw garbage JSON-RPC never yields a 500", async () => {
    green = await startGreen(fixtureRunner("events.mjs"));
    for (const body of [
      "{not json",
      JSON.stringify({ id: 1, method: "message/send" }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "nope" }),
    ]) {
      const res = await fetch(green.url, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get("a2a-version")).toBe("0.3.0");
    }
  });

  test("a reused run_id is rejected", async () => {
    green = await startGreen(fixtureRunner("events.mjs"));
    const client = await createA2AClient(green.url);
    await client.sendMessage(requestOf(assessment({ run_id: "dup" })));
    const again = (await client.sendMessage(requestOf(assessment({ run_id: "dup" })))) as Task;
    expect(again.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect((again.status?.message?.parts ?? []).map(partText).join(" ")).toMatch(/already used/);
  });
});
