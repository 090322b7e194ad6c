/**
 * `kill_uid(uid)` in Python, shared by the programs that give each job a uid of its own and must leave
 * nothing of it running before the uid is used again: the local fork server and the E2B batch driver.
 * Needs `os` and `signal` imported. /proc/<pid> of a non-dumpable process is owned by root, so the uid is read
 * from its status; zombies are skipped (already dead, reaped by their parent).
 */
export const KILL_UID_PY = String.raw`def kill_uid(uid):
    """SIGKILL every live process of this uid, until a pass finds none."""
    want = "Uid:\t%d\t" % uid
    for _ in range(20):
        found = False
        for p in os.listdir("/proc"):
            if not p.isdigit(): continue
            try:
                with open("/proc/%s/status" % p) as fh: st = fh.read()
            except OSError:
                continue
            if want not in st or "\nState:\tZ" in st: continue
            found = True
            try: os.kill(int(p), signal.SIGKILL)
            except OSError: pass
        if not found: return`;
