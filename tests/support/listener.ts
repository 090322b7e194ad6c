/** A process "started by hand" that listens on a loopback port: the holder preflight must name. */
import { spawn, type ChildProcess } from "node:child_process";

export interface Listener {
  child: ChildProcess;
  pid: number;
  port: number;
  /** SIGKILL its process group and wait for it to exit. */
  stop(): Promise<void>;
}

const PROGRAM = `const s = require("node:net").createServer();
s.listen(0, "127.0.0.1", () => console.log(s.address().port));
setTimeout(() => process.exit(0), 60000); // never outlives a test run`;

/** Start `node -e <listen on port 0>` in its own process group; resolves once it listens. */
export async function startListener(): Promise<Listener> {
  const child = spawn(process.execPath, ["-e", PROGRAM], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const port = await new Promise<number>((resolve, reject) => {
    let buf = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      buf += d;
      if (buf.includes("\n")) resolve(Number(buf.trim()));
    });
    child.once("exit", (code) => reject(new Error(`listener exited (${code}) before listening`)));
  });
  return {
    child,
    pid: child.pid!,
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
      await exited;
    },
  };
}
