// Baseline for row 3: a bare Express JSON-RPC echo (no A2A SDK, no task store):
// answers message/send with a v0.3 agent message holding the same parts.
// Usage: node bench/servers/bare-echo.mjs <port>
import express from "express";

const app = express();
app.use(express.json({ limit: "1mb" }));
let n = 0;
app.post("/", (req, res) => {
  const { id, params } = req.body ?? {};
  const parts = params?.message?.parts ?? [];
  res.json({ jsonrpc: "2.0", id, result: { kind: "message", role: "agent", messageId: `echo-${++n}`, parts } });
});
app.listen(Number(process.argv[2]), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
