/**
 * The python half of the pass proof, shared by the fork server and the
 * per-exec wrapper (so both prove the same thing).
 *
 * `_a2a_prove(fd, token, run)` arms the proof, runs `run()` (the program, in a
 * fresh globals dict) and writes `token` to `fd` only when `run()` returned
 * normally. The token is held in a suspended generator (the "keeper"), not in
 * a frame local: reading a suspended generator's locals needs `gi_frame`,
 * which raises an audit event, and resuming it is refused unless the resume
 * comes from the harness frame that primed it, in the process that primed it.
 * An audit hook (it cannot be removed) refuses the proof — writes `X:<event>`
 * to the channel at once, so it cannot be taken back — when the program
 * installs a trace/profile hook or a sys.monitoring callback (either can jump
 * over asserts by setting f_lineno),
 * walks the object graph with gc, uses ctypes to read memory, opens a
 * process's memory, or touches the keeper. If the channel has been replaced
 * (fd closed or dup2'd over) when the hook needs it, the process exits 125.
 *
 * What this does NOT prove: the program runs in the same interpreter as the
 * harness, so code determined to find the token in its own memory by a path
 * no audit event covers can still forge the proof. That is the residual
 * threat named in README "Sandbox"; closing it would need the check in a
 * separate process from the candidate, which HumanEval's program (candidate
 * and tests in one file) does not allow.
 */
export const PROOF_HARNESS_PY = String.raw`
def _a2a_prove(fd, token, run):
    import sys as _s, os as _o
    _write, _fstat, _exit, _getpid = _o.write, _o.fstat, _o._exit, _o.getpid
    _gettrace, _getprofile, _frame = _s.gettrace, _s.getprofile, _s._getframe
    _st = _fstat(fd); ident = (_st.st_dev, _st.st_ino)
    leader = _getpid()
    refused = []
    def channel_ok():
        try:
            st = _fstat(fd)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == ident
    def refuse(why):
        if refused: return
        refused.append(why)
        if not channel_ok(): _exit(125)
        try: _write(fd, ("X:%s\n" % why).encode())
        except OSError: _exit(125)
    def keeper(tok):
        home = _frame(1)
        yield
        if _frame(1) is not home or _getpid() != leader:
            refuse("proof keeper resumed by the program")
            return
        if not refused and channel_ok():
            _write(fd, tok)
        yield
    keep = keeper(token.encode())
    next(keep)
    token = None
    # sys.monitoring (3.12+) callbacks may also set f_lineno, like trace functions.
    TAINT = ("sys.settrace", "sys.setprofile", "sys.monitoring.register_callback",
             "gc.get_objects", "gc.get_referrers", "gc.get_referents")
    def hook(event, args):
        if event in TAINT:
            refuse(event)
        elif event.startswith("ctypes.") and event != "ctypes.dlopen":
            refuse(event)
        elif event == "object.__getattr__" and args and args[0] is keep:
            refuse("proof keeper inspected")
        elif event == "open" and args and isinstance(args[0], (str, bytes)):
            p = args[0].decode("utf-8", "replace") if isinstance(args[0], bytes) else args[0]
            if p.startswith("/proc/") and (p.endswith("/mem") or "/map_files" in p):
                refuse("opened process memory")
    _s.addaudithook(hook)
    ok = False
    try:
        run()
        ok = True
    finally:
        if ok and _gettrace() is None and _getprofile() is None and _getpid() == leader:
            try: next(keep)
            except StopIteration: pass
        elif ok:
            refuse("trace or profile hook still installed")
`;
