import { expect, test } from "vitest";
import { participantFailureMode } from "../../src/runner/participant-failure.js";
import { ParticipantError } from "../../src/a2a/participant-client.js";

test("a participant timeout is the model's failure; unreachable is ours", () => {
  expect(participantFailureMode(new ParticipantError("E_PARTICIPANT_TIMEOUT", "slow"))).toBe("model_agent_timeout");
  expect(participantFailureMode(new ParticipantError("E_PARTICIPANT_ABORTED", "stopped"), true)).toBe(
    "model_agent_timeout",
  );
  expect(participantFailureMode(new ParticipantError("E_PARTICIPANT_TRANSPORT", "refused"))).toBe(
    "infrastructure_participant",
  );
  expect(participantFailureMode(new Error("weird"))).toBe("infrastructure_participant");
});
