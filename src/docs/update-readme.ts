#!/usr/bin/env node
/** `npm run docs`: regenerate README.md's config reference from the schema. */
import { updateReadme } from "./config-reference.js";

updateReadme().then(
  (changed) =>
    process.stdout.write(
      changed ? "README.md: config reference updated\n" : "README.md: config reference already current\n",
    ),
  (err: unknown) => {
    process.stderr.write(`docs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
