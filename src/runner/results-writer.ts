/**
 * results.json written as a stream: the document's head, then its rows read
 * back one at a time (from the checkpoint, see row-store.ts), each checked
 * against schemas/results.schema.json and fed to the aggregate, then the
 * aggregate. The bytes are those of `JSON.stringify(document, null, 2)` plus
 * a newline — the same file as one written whole — without ever holding
 * every row or the whole text.
 */
import { writeChunksAtomic } from "../util/atomic-write.js";
import { checkAgainst } from "../util/schema.js";
import { ValidationError } from "../util/errors.js";
import {
  RESULTS_SCHEMA_FILE,
  type ResultRow,
  type ResultsAggregate,
  type ResultsDocument,
} from "../results-file/document.js";

/** Everything of the document but its rows and aggregate, in the document's key order. */
export type ResultsHead = Omit<ResultsDocument, "rows" | "aggregate">;

const indent = (json: string, pad: string): string => json.replace(/\n/g, `\n${pad}`);

/**
 * Write `path` atomically from `head`, the `rows` (in document order) and the
 * aggregate that `aggregate()` returns once every row went by (each row is
 * passed to `onRow` first). Throws ValidationError, writing nothing, when a
 * row or the document would not match the schema.
 */
export async function writeResultsStreaming(
  path: string,
  head: ResultsHead,
  rows: AsyncIterable<ResultRow>,
  onRow: (row: ResultRow) => void,
  aggregate: () => ResultsAggregate,
): Promise<ResultsAggregate> {
  let result: ResultsAggregate | null = null;
  const problemsOf = (doc: unknown, what: string): void => {
    const problems = checkAgainst(RESULTS_SCHEMA_FILE, doc);
    if (problems.length > 0)
      throw new ValidationError(`results.json would not match schemas/results.schema.json (${what})`, problems);
  };
  async function* chunks(): AsyncGenerator<string> {
    const open = JSON.stringify({ ...head, rows: 0 }, null, 2);
    yield open.slice(0, open.length - "0\n}".length);
    let n = 0;
    for await (const row of rows) {
      problemsOf({ ...head, rows: [row], aggregate: { failure_modes: {} } }, `row ${row.id}`);
      onRow(row);
      yield `${n++ === 0 ? "[" : ","}\n    ${indent(JSON.stringify(row, null, 2), "    ")}`;
    }
    yield n === 0 ? "[]" : "\n  ]";
    result = aggregate();
    problemsOf({ ...head, rows: [], aggregate: result }, "aggregate");
    yield `,\n  "aggregate": ${indent(JSON.stringify(result, null, 2), "  ")}\n}\n`;
  }
  await writeChunksAtomic(path, chunks());
  if (result === null) throw new Error("results stream ended before its aggregate");
  return result;
}
