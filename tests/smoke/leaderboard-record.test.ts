import { describe, expect, it } from "vitest";
import type { Part } from "@a2a-js/sdk";
import { collectedResults, leaderboardRecord } from "../../src/smoke/leaderboard-record.js";
import type { CollectedArtifact } from "../../src/smoke/assessment-stream.js";

const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const data = (value: Record<string, unknown>): Part =>
  ({
    content: { $case: "data", value },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  }) as unknown as Part;
const artifact = (name: string, parts: Part[]): CollectedArtifact => ({ artifactId: name, name, parts });

describe("leaderboard record", () => {
  it("collects every DataPart and every TextPart that is JSON, in artifact order, and skips prose", () => {
    const artifacts = [
      artifact("evaluation_bundle", [
        data({ run_id: "r1", metrics: { accuracy: 1 } }),
        text("humaneval run r1: exit 0"),
      ]),
      artifact("extra", [text('{"score": 0.5}')]),
      artifact("notes", [text("not json {")]),
    ];
    expect(collectedResults(artifacts)).toEqual([{ run_id: "r1", metrics: { accuracy: 1 } }, { score: 0.5 }]);
    expect(leaderboardRecord({ agent: "019a-purple" }, artifacts)).toEqual({
      participants: { agent: "019a-purple" },
      results: [{ run_id: "r1", metrics: { accuracy: 1 } }, { score: 0.5 }],
    });
  });

  it("refuses a record without participants or with an empty agent id", () => {
    expect(() => leaderboardRecord({}, [])).toThrow(/E_LEADERBOARD_RECORD|leaderboard record/);
    expect(() => leaderboardRecord({ agent: "" }, [])).toThrow(/leaderboard record: record\/participants\/agent/);
  });
});
