/**
 * The named waits of process termination, in one place. Each supervisor used
 * to carry its own unnamed 1 s / 2 s / 5 s; these are those values.
 */

/**
 * SIGTERM → SIGKILL grace on cancel or timeout, ms. smi_bench's green waits 5 s
 * for its runner, and execa's `forceKillAfterDelay` defaults to the same.
 */
export const DEFAULT_GRACE_MS = 5_000;

/**
 * After a group leader exits on its own, members left in its group (a
 * grandchild holding our pipes) get this long after SIGTERM before SIGKILL, ms.
 */
export const LEFTOVER_GRACE_MS = 1_000;

/**
 * How long a SIGKILLed group may take to be reaped before we stop waiting, ms.
 * SIGKILL cannot be caught; only a process stuck in uninterruptible sleep (D
 * state, e.g. on a dead NFS mount) outlives this.
 */
export const KILL_REAP_MS = 2_000;

/** Longest wait for the output pipes to drain once the group is gone, ms (a process that left the group may hold them). */
export const PIPE_DRAIN_MS = 5_000;

/**
 * Longest wait for a child's `stopWork` (e.g. `docker kill` of the container an exec client drives) before
 * the child's own signals follow anyway, ms: a stuck engine must not keep a timed-out child running. The
 * stopWork itself goes on to its end in the background.
 */
export const STOP_WORK_WAIT_MS = 15_000;

/**
 * Poll interval while waiting for a group to empty, ms: short enough that a
 * cancel reports the group gone within a few ms of its end; each poll is one
 * signal-0 probe, and a /proc scan only while a member is still alive.
 */
export const GROUP_POLL_MS = 25;
