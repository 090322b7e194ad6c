/**
 * Kill children when the parent exits. Our children lead their own groups
 * (`detached`), so nothing takes them down with us: one process 'exit'
 * handler SIGKILLs every group still registered. 'exit' runs on a normal end
 * and on process.exit(); a parent killed by an unhandled signal runs no
 * handler at all, which is why the green runner also has its stdin lifeline.
 * execa's `cleanup` option does this only for non-detached children (and only
 * for the direct child), hence our own.
 */
import { killGroupsSync } from "./kill-group.js";

const live = new Set<number>();
let installed = false;

function onExit(): void {
  killGroupsSync(live);
}

/** Register group `pgid` to be killed if this process exits first. */
export function killOnParentExit(pgid: number): void {
  live.add(pgid);
  if (!installed) {
    installed = true;
    process.on("exit", onExit);
  }
}

/** The group is gone (or handed over): forget it. */
export function forgetGroup(pgid: number): void {
  live.delete(pgid);
}
