/**
 * `kill_uid(uid)` in Python, shared by the programs that give each job a uid of its own and must leave
 * nothing of it running before the uid is used again: the local fork server and the E2B batch driver.
 * /proc/<pid> of a non-dumpable process is owned by root, so the uid is read from its status; zombies are
 * skipped (already dead, reaped by their parent). With it, `read_proc(pid, name)`: one read of a /proc file
 * through os calls, no file object (the fork server scans /proc after every job, and each Python object it
 * makes there writes to heap pages its forked jobs share: a page copy each). Needs `os`, `signal` and `time`
 * imported. A SIGKILLed process dies only when it is next scheduled, which on a busy machine is not at once:
 * kill_uid waits for that (bounded by KILL_UID_SECONDS), so the next job of the uid never sees one alive.
 */
export const KILL_UID_PY = String.raw`def read_proc(pid, name):
    """The text of /proc/<pid>/<name> (one read: these files are small); OSError when the process is gone."""
    fd = os.open("/proc/%s/%s" % (pid, name), os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 65536).decode("utf-8", "replace")
    finally:
        os.close(fd)

KILL_UID_SECONDS = 10.0

def kill_uid(uid):
    """SIGKILL every live process of this uid until a pass finds none; False if some outlive KILL_UID_SECONDS."""
    want = "Uid:\t%d\t" % uid
    deadline = time.monotonic() + KILL_UID_SECONDS
    while True:
        found = False
        for p in os.listdir("/proc"):
            if not p.isdigit(): continue
            try:
                st = read_proc(p, "status")
            except OSError:
                continue
            if want not in st or "\nState:\tZ" in st: continue
            found = True
            try: os.kill(int(p), signal.SIGKILL)
            except OSError: pass
        if not found: return True
        if time.monotonic() >= deadline: return False
        time.sleep(0.002)`;
