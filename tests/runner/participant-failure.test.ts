import { describe, expect, it } from "vitest";
import { countParticipantErrors, participantFailureMode } from "../../src/runner/participant-failure.js";
import { ParticipantError } from "../../src/a2a/client/participant-client.js";
import { InfrastructureError } from "../../src/util/infrastructure-error.js";

describe("participantFailureMode: after the card check, what the participant does is its failure", () => {
  it("a late answer is model_agent_timeout", () => {
    expect(participantFailureMode(new ParticipantError("E_PARTICIPANT_TIMEOUT", "slow"))).toBe("model_agent_timeout");
    expect(participantFailureMode(new ParticipantError("E_PARTICIPANT_ABORTED", "stopped"), true)).toBe(
      "model_agent_timeout",
    );
  });

  it("a failed request (malformed reply, JSON-RPC/HTTP error, reset) or an oversized reply is model_participant_error", () => {
    for (const code of ["E_PARTICIPANT_TRANSPORT", "E_PARTICIPANT_REPLY_TOO_LARGE"] as const) {
      expect(participantFailureMode(new ParticipantError(code, "bad reply"))).toBe("model_participant_error");
    }
  });

  it("a card that cannot be had, or an error that is not the participant client's, stays ours", () => {
    expect(participantFailureMode(new InfrastructureError("E_PARTICIPANT_UNREACHABLE", "gone"))).toBe(
      "infrastructure_participant",
    );
    expect(participantFailureMode(new Error("weird"))).toBe("infrastructure_participant");
  });
});

it("countParticipantErrors sums the participant's reply failures of a tally", () => {
  expect(
    countParticipantErrors({ model_participant_error: 3, model_agent_timeout: 2, model_wrong_answer: 7, timeout: 1 }),
  ).toBe(5);
  expect(countParticipantErrors({})).toBe(0);
});
