#!/usr/bin/env node
/** `npm run docs`: regenerate docs/config-reference.md's generated block from the schema. */
import { CONFIG_REFERENCE_PAGE, updateConfigReference } from "./config-reference.js";

updateConfigReference().then(
  (changed) =>
    process.stdout.write(`${CONFIG_REFERENCE_PAGE}: config reference ${changed ? "updated" : "already current"}\n`),
  (err: unknown) => {
    process.stderr.write(`docs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
