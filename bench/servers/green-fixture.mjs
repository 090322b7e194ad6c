// The green agent app (dist's createGreenApp, settings from the GREEN_* env as the CLI reads them)
// served on loopback with a bench fixture runner in place of the built-in runner.
// Usage: node bench/servers/green-fixture.mjs <port> <fixture runner file>
import { join } from "node:path";
import { DIST } from "../lib/paths.mjs";

const { createGreenApp, serveApp } = await import(join(DIST, "index.js"));
const { cardFromToml } = await import(join(DIST, "a2a/shared/card.js"));
const { builtinRunnerCommand } = await import(join(DIST, "green/runner-command.js"));
const port = Number(process.argv[2]);
const runner = process.argv[3];
let green;
await serveApp("127.0.0.1", port, (p) => {
  const card = cardFromToml({ name: "bench-green", url: `http://127.0.0.1:${p}/`, version: "0.0.1", skills: [] });
  green = createGreenApp({ card, runnerCommand: builtinRunnerCommand(runner) });
  return green.app;
});
process.on("SIGTERM", () => {
  green.shutdown().finally(() => process.exit(0));
});
