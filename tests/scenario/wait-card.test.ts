/** The operator tools' card poll reads the card through the capped reader: a compression bomb costs about the cap. */
import { afterAll, describe, expect, it } from "vitest";
import { fetchCard } from "../../src/scenario/wait-card.js";
import { card, startFakeParticipant, type FakeParticipant } from "../a2a/fake-participant.js";
import { compressionBomb, peakRssGrowth } from "../a2a/bombs.js";

const MiB = 1024 * 1024;
const fakes: FakeParticipant[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});
const noAnswer = (): never => {
  throw new Error("no question expected");
};

describe("fetchCard", () => {
  it("reads a card", async () => {
    const f = await startFakeParticipant({ answer: noAnswer });
    fakes.push(f);
    expect(await fetchCard(`${f.url}.well-known/agent-card.json`, 30_000)).toMatchObject({ name: "hostile" });
  });

  it("a card that decodes to 256 MiB (gzip) is no card, read only to about the cap", async () => {
    const text = JSON.stringify({ ...card("legacy", "http://127.0.0.1:1/"), description: "" });
    const [head, tail] = text.split('"description":""');
    const body = await compressionBomb("gzip", `${head}"description":"`, 256 * MiB, `"${tail}`);
    const f = await startFakeParticipant({
      answer: noAnswer,
      rawCard: { body, headers: { "content-type": "application/json", "content-encoding": "gzip" } },
    });
    fakes.push(f);
    const { value, growth } = await peakRssGrowth(() => fetchCard(`${f.url}.well-known/agent-card.json`, 60_000));
    expect(value).toBeUndefined();
    expect(growth).toBeLessThan(128 * MiB);
  });
});
