/**
 * A lifeline of its own for a supervised child: an extra pipe (fd 3 in the
 * child) that the parent holds open and never writes, named to the child in
 * env A2A_BENCH_LIFELINE_FD. The kernel closes the parent's end when the
 * parent dies, even by SIGKILL, and the child sees EOF there. Unlike a stdin
 * lifeline it leaves the child's stdin alone: a child started by hand, under a
 * benchmarking tool or in a CI step (stdin a TTY, /dev/null or an empty pipe)
 * has no lifeline to watch and is indifferent to its stdin.
 */
import { Socket } from "node:net";

/** The env variable naming the child's lifeline fd. */
export const LIFELINE_FD_ENV = "A2A_BENCH_LIFELINE_FD";

/** The fd the lifeline is at in the child (the first after stdin, stdout and stderr). */
export const LIFELINE_FD = 3;

/** Watching a lifeline; `dispose` stops watching (the fd stays ours until exit). */
export interface LifelineWatch {
  dispose(): void;
}

/**
 * The child's side: when `env` names a lifeline fd, call `onLost` once its other end closes. The name is
 * removed from `env` (the child's own children have no lifeline of ours). Returns null when there is none;
 * throws when the named fd is not a number or cannot be watched.
 */
export function watchLifeline(env: NodeJS.ProcessEnv, onLost: () => void): LifelineWatch | null {
  const raw = env[LIFELINE_FD_ENV];
  if (raw === undefined || raw === "") return null;
  delete env[LIFELINE_FD_ENV];
  const fd = Number(raw);
  if (!Number.isInteger(fd) || fd < 3)
    throw new Error(`${LIFELINE_FD_ENV} must be a file descriptor >= 3, got ${JSON.stringify(raw)}`);
  const socket = new Socket({ fd, readable: true, writable: false });
  let lost = false;
  const lose = (): void => {
    if (lost) return;
    lost = true;
    onLost();
  };
  socket.on("end", lose);
  socket.on("close", lose);
  socket.on("error", lose);
  socket.on("data", () => undefined); // nothing is written; whatever comes is discarded
  socket.unref(); // watching does not keep the process alive
  return {
    dispose: () => {
      socket.removeListener("end", lose);
      socket.removeListener("close", lose);
      socket.removeListener("error", lose);
      socket.on("error", () => undefined);
      socket.pause();
    },
  };
}
