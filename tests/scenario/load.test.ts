import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadScenario, parseScenario, ScenarioConfigError } from "../../src/scenario/load.js";
import { defaultScenarioDir, cliEntry } from "../../src/util/package-root.js";
import { participantIdsOf, participantsOf } from "../../src/scenario/spec.js";

// Next to the shipped card files, so `card` references resolve.
const FILE = join(defaultScenarioDir, "scenario.toml");

const SMI = `[scenario]
name = "t"

[[agents]]
card = "green_agent_card.toml"
is_green = true
agent_host = "127.0.0.1"
agent_port = 9999

[[agents]]
card = "purple_agent_card.toml"
is_green = false
mode = "gold"
agent_host = "127.0.0.1"
agent_port = 9998
`;

function problemsOf(source: string): string[] {
  try {
    parseScenario(source, FILE);
  } catch (err) {
    if (err instanceof ScenarioConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ScenarioConfigError");
}

describe("loadScenario", () => {
  it("loads the shipped scenario_smi: green first, purple in gold mode, sample HumanEval config", () => {
    const s = loadScenario(defaultScenarioDir);
    expect(s.layout).toBe("smi");
    expect(s.agents.map((a) => [a.name, a.port, a.isGreen])).toEqual([
      ["green", 9999, true],
      ["purple", 9998, false],
    ]);
    const purple = s.agents[1]!;
    expect(purple.command?.file).toBe(process.execPath);
    expect(purple.command?.args.slice(0, 2)).toEqual([cliEntry, "purple"]);
    expect(purple.command?.args.join(" ")).toContain("--mode gold");
    expect(purple.role).toBe("agent");
    expect(s.agents[0]!.cardUrl).toBe("http://127.0.0.1:9999/.well-known/agent-card.json");
    expect(s.config).toEqual({ benchmark: "humaneval", dataset: "sample", time_budget_seconds: 1500 });
  });

  it("names file, key and line of an unknown key", () => {
    const bad = SMI.replace("agent_port = 9998", "agent_prot = 9998");
    const problems = problemsOf(bad);
    expect(problems).toContain(`${FILE}:15: agents[1].agent_prot: unknown key`);
    // The now-missing agent_port points at the [[agents]] header of that entry (line 10).
    expect(problems).toContain(`${FILE}:10: agents[1].agent_port: missing required key`);
  });

  it("names the line of a value of the wrong type", () => {
    const problems = problemsOf(SMI.replace("agent_port = 9999", 'agent_port = "x"'));
    expect(problems).toEqual([`${FILE}:8: agents[0].agent_port: must be integer`]);
  });

  it("reports TOML syntax errors with their line", () => {
    const problems = problemsOf(SMI.replace('mode = "gold"', "mode = "));
    expect(problems[0]).toMatch(new RegExp(`^${FILE}:13: TOML syntax`));
  });

  it("validates [config] against the assessment schema, with its line", () => {
    const problems = problemsOf(SMI + '\n[config]\nbenchmark = "humaneval"\nsamplez = 3\n');
    expect(problems).toEqual([`${FILE}:19: config.samplez: unknown key`]);
  });

  it("names a card file that does not exist", () => {
    const problems = problemsOf(SMI.replace('card = "purple_agent_card.toml"', 'card = "nope.toml"'));
    expect(problems).toEqual([`${FILE}:11: agents[1].card: file ${join(defaultScenarioDir, "nope.toml")} not found`]);
  });

  it("requires exactly one green agent", () => {
    const problems = problemsOf(SMI.replace("is_green = false", "is_green = true"));
    expect(problems[0]).toContain("exactly one agent must have is_green = true (found 2)");
  });

  it("accepts the AgentBeats tutorial layout and runs a2a-bench commands through this package's CLI", () => {
    const s = parseScenario(
      `[green_agent]
endpoint = "http://127.0.0.1:9009"
cmd = "a2a-bench green --host 127.0.0.1 --port 9009"

[[participants]]
role = "agent"
endpoint = "http://127.0.0.1:9019"
cmd = "a2a-bench purple --port 9019 --mode gold"

[config]
benchmark = "humaneval"
samples = 2
`,
      FILE,
    );
    expect(s.layout).toBe("agentbeats");
    expect(s.agents.map((a) => [a.role, a.port, a.endpoint])).toEqual([
      ["green", 9009, "http://127.0.0.1:9009/"],
      ["agent", 9019, "http://127.0.0.1:9019/"],
    ]);
    expect(s.agents[0]!.command?.file).toBe("/bin/sh");
    expect(s.agents[0]!.command?.args[1]).toContain(cliEntry);
    expect(s.config).toEqual({ benchmark: "humaneval", samples: 2 });
  });

  it("flags an unknown key in a tutorial participant with its line", () => {
    const problems = problemsOf(`[green_agent]
endpoint = "http://127.0.0.1:9009"

[[participants]]
role = "agent"
endpoint = "http://127.0.0.1:9019"
comand = "x"
`);
    expect(problems).toEqual([`${FILE}:7: participants[0].comand: unknown key`]);
  });

  it("reads a leaderboard repository's scenario.toml: agentbeats ids, compose service endpoints, ${VAR} env kept", () => {
    const s = parseScenario(
      `[green_agent]
agentbeats_id = "019a-green"
env = { LOG_LEVEL = "info" }

[[participants]]
agentbeats_id = "019a-purple"
name = "agent"
env = { OPENAI_API_KEY = "\${OPENAI_API_KEY}" }

[config]
benchmark = "humaneval"
dataset = "sample"
`,
      FILE,
    );
    expect(s.layout).toBe("agentbeats");
    expect(s.agents.map((a) => [a.role, a.endpoint, a.agentbeatsId, a.command])).toEqual([
      ["green", "http://green-agent:9009/", "019a-green", undefined],
      ["agent", "http://agent:9009/", "019a-purple", undefined],
    ]);
    expect(s.agents[1]!.env).toEqual({ OPENAI_API_KEY: "${OPENAI_API_KEY}" });
    expect(participantIdsOf(s)).toEqual({ green: "019a-green", agent: "019a-purple" });
    expect(participantsOf(s)).toEqual({ agent: "http://agent:9009/" });
  });

  it("lists a participant without an agentbeats_id by its endpoint in the leaderboard record", () => {
    const s = parseScenario(
      `[green_agent]\nimage = "a2a-bench-green:local"\n\n[[participants]]\nimage = "a2a-bench-purple:local"\nname = "agent"\n`,
      FILE,
    );
    expect(participantIdsOf(s)).toEqual({ green: "http://green-agent:9009/", agent: "http://agent:9009/" });
  });

  it("refuses a participant whose role is the green agent's (the record names the green agent `green`)", () => {
    expect(() =>
      parseScenario(
        `[green_agent]\nimage = "a2a-bench-green:local"\n\n[[participants]]\nimage = "a2a-bench-purple:local"\nname = "green"\n`,
        FILE,
      ),
    ).toThrow(/participants\[0\]: role "green" is the green agent's/);
  });

  it("requires an endpoint, agentbeats_id or image for every agent, and distinct participant roles", () => {
    const none = problemsOf(`[green_agent]\nenv = {}\n\n[[participants]]\nagentbeats_id = "x"\nname = "agent"\n`);
    expect(none).toContain(`${FILE}:1: green_agent.agentbeats_id: missing required key`);
    expect(none.some((p) => p.includes("green_agent: must match a schema in anyOf"))).toBe(true);
    const twice = problemsOf(
      `[green_agent]\nagentbeats_id = "g"\n\n[[participants]]\nagentbeats_id = "a"\nname = "agent"\n\n[[participants]]\nagentbeats_id = "b"\nname = "agent"\n`,
    );
    expect(twice).toEqual([`${FILE}:8: participants[1]: role "agent" already used by participants[0]`]);
  });

  it("says which file is missing", () => {
    expect(() => loadScenario(join("/nonexistent", "dir"))).toThrow(
      /\/nonexistent\/dir\/scenario.toml: cannot read \(ENOENT\)/,
    );
  });
});
