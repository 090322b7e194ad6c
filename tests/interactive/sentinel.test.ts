import { describe, expect, test } from "vitest";
import { echoesSentinelFirst, submissionFromOutput, SUBMIT_SENTINEL } from "../../src/interactive/sentinel.js";

describe("echoesSentinelFirst", () => {
  test.each([
    `echo ${SUBMIT_SENTINEL} && git add -A && git diff --cached`,
    `echo "${SUBMIT_SENTINEL}"; git diff`,
    `  echo '${SUBMIT_SENTINEL}'\ngit diff`,
    `echo ${SUBMIT_SENTINEL}`,
    `echo ${SUBMIT_SENTINEL} | cat`,
  ])("recognises %j", (command) => {
    expect(echoesSentinelFirst(command)).toBe(true);
  });

  test.each([
    `cat notes.txt # ${SUBMIT_SENTINEL}`,
    `git diff && echo ${SUBMIT_SENTINEL}`,
    `echo ${SUBMIT_SENTINEL}X`,
    `echo "${SUBMIT_SENTINEL}'`,
    `printf '%s\\n' ${SUBMIT_SENTINEL}`,
  ])("does not take %j as a submission", (command) => {
    expect(echoesSentinelFirst(command)).toBe(false);
  });
});

describe("submissionFromOutput", () => {
  test("the rest of stdout after the sentinel line is the submission", () => {
    const diff = "diff --git a/x b/x\n+fixed\n";
    expect(submissionFromOutput(`${SUBMIT_SENTINEL}\n${diff}`, 0)).toBe(diff);
  });

  test("leading blank lines and spaces around the sentinel are tolerated (mini-swe-agent's lstrip/strip)", () => {
    expect(submissionFromOutput(`\n\n  ${SUBMIT_SENTINEL}  \npatch`, 0)).toBe("patch");
  });

  test("the sentinel alone submits an empty output", () => {
    expect(submissionFromOutput(`${SUBMIT_SENTINEL}\n`, 0)).toBe("");
    expect(submissionFromOutput(SUBMIT_SENTINEL, 0)).toBe("");
  });

  test("a non-zero exit or another first line is no submission", () => {
    expect(submissionFromOutput(`${SUBMIT_SENTINEL}\npatch`, 1)).toBeUndefined();
    expect(submissionFromOutput(`${SUBMIT_SENTINEL}\npatch`, null)).toBeUndefined();
    expect(submissionFromOutput(`warning\n${SUBMIT_SENTINEL}\npatch`, 0)).toBeUndefined();
  });
});
