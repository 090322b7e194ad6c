import { describe, expect, test } from "vitest";
import { requestVersion } from "../../../src/a2a/server/wire-version.js";

describe("requestVersion (A2A 1.0 §3.6)", () => {
  test("the header wins, then the A2A-Version request parameter", () => {
    expect(requestVersion("0.3", "1.0", "SendMessage")).toBe("0.3");
    expect(requestVersion("1.0", undefined, "message/send")).toBe("1.0");
    expect(requestVersion(undefined, "1.0", "message/send")).toBe("1.0");
    expect(requestVersion(undefined, "0.3", "SendMessage")).toBe("0.3");
    // Only a single string counts (?A2A-Version=1.0&A2A-Version=0.3 parses to an array).
    expect(requestVersion(undefined, ["1.0", "0.3"], "message/send")).toBeUndefined();
    expect(requestVersion(undefined, "", "message/send")).toBeUndefined();
  });

  test("without either, a 1.0 method name is 1.0 and anything else the SDK's 0.3 default", () => {
    for (const m of ["SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"]) {
      expect(requestVersion(undefined, undefined, m), m).toBe("1.0");
    }
    expect(requestVersion(undefined, undefined, "message/send")).toBeUndefined();
    expect(requestVersion(undefined, undefined, "tasks/get")).toBeUndefined();
    expect(requestVersion(undefined, undefined, "SendMessageXXX")).toBeUndefined();
    expect(requestVersion(undefined, undefined, 5)).toBeUndefined();
    expect(requestVersion(undefined, undefined)).toBeUndefined();
  });
});
