// Baseline for the serving rows: a bare Express app (express.json, no A2A SDK,
// no task store) answering with JSON read from files at start-up:
//   GET /.well-known/agent-card.json → the card file (the same JSON the agent serves),
//   POST / → {jsonrpc, id, result: <the result file>} (the same result `tasks/get` returns).
// Usage: node bench/servers/bare-json.mjs <port> <card.json> [<result.json>]
import { readFileSync } from "node:fs";
import express from "express";

const [port, cardFile, resultFile] = process.argv.slice(2);
const card = JSON.parse(readFileSync(cardFile, "utf8"));
const result = resultFile ? JSON.parse(readFileSync(resultFile, "utf8")) : null;
const app = express();
app.get("/.well-known/agent-card.json", (_req, res) => res.json(card));
app.post("/", express.json({ limit: "1mb" }), (req, res) => res.json({ jsonrpc: "2.0", id: req.body?.id, result }));
app.listen(Number(port), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
