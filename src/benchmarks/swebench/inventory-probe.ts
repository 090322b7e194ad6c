/**
 * The two probes that inventory what decides how an instance's tests run,
 * both run where the tests run (the sandbox or the instance's container,
 * with the test run's interpreter, in the tree) and depending on nothing but
 * that interpreter and the tree.
 *
 * - The **static probe** ({@link STATIC_PROBE_PY}) runs `python3 -I -B`:
 *   isolated mode ignores PYTHON* variables and puts neither the working
 *   directory nor the user's site on sys.path, and the probe also drops every
 *   sys.path entry inside the tree before importing anything. No code of the
 *   tree runs in it, so a patch cannot forge its answer: it reads files only.
 *   It asks pytest's own config machinery (`_pytest.config.findpaths`, the
 *   installed pytest's parsers and precedence: pytest.toml, .pytest.toml,
 *   pytest.ini, .pytest.ini, pyproject.toml, tox.ini, setup.cfg, whatever
 *   that version supports) for the rootdir, config file and ini values the
 *   test command's arguments select, and the parsed pytest configuration of
 *   EVERY config-named file in the tree (dotted keys, spaced headers and
 *   symlinks read as pytest reads them). It lists symlinks, files that run or
 *   set environment when Python or pytest starts (conftest.py,
 *   sitecustomize.py, usercustomize.py, *.pth, .env files, entry_points.txt
 *   of dist-info/egg-info), `pytest11` entry points visible from the tree
 *   and the interpreter's path, and modules in the directories the test run
 *   imports from (the tree root, the rootdir-inserted test directories, ini
 *   `pythonpath`) named like a stdlib module or a module pytest imports.
 * - The **runner probe** ({@link RUNNER_PROBE_PY}, pytest repositories only)
 *   runs pytest itself in collection-only mode, as the test command would
 *   (`python3 -c`, so the working directory is first on sys.path as with
 *   `python3 -m pytest`), and reports what pytest actually loaded: rootdir,
 *   config file, plugins, conftest files, addopts, options, environment
 *   changes, modules imported from the tree that shadow stdlib or runner
 *   modules. The patch's code (conftests, plugins, the package) runs in that
 *   process and could print a forged report, so it is a second signal only:
 *   any difference from the pre-patch report, a missing or duplicated report,
 *   or disagreement with the static probe flags the patch; agreement proves
 *   nothing on its own.
 *
 * Both print one JSON line after a marker (the runner probe's marker is
 * drawn per run); anything else on stdout is ignored.
 */
import { randomBytes } from "node:crypto";

/** Marker of the static probe's line (nothing of the tree runs in that process, so no nonce is needed). */
export const STATIC_MARK = "A2A-STATIC-INVENTORY:";

/** Python source of the static probe (Python 3.6+; argv[1] = JSON list of the test paths). */
export const STATIC_PROBE_PY = String.raw`
import hashlib, json, os, sys
ROOT = os.path.realpath(os.getcwd())
def inside(p):
    try:
        rp = os.path.realpath(p or os.curdir)
    except Exception:
        return True
    return rp == ROOT or rp.startswith(ROOT + os.sep)
sys.path[:] = [p for p in sys.path if p and not inside(p)]
sys.dont_write_bytecode = True
TESTS = json.loads(sys.argv[1]) if len(sys.argv) > 1 else []
CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
HOOK_NAMES = ("conftest.py", "sitecustomize.py", "usercustomize.py")
def rel(p):
    return os.path.relpath(os.path.abspath(str(p)), ROOT).replace(os.sep, "/")
def scrub(s):
    return str(s).replace(ROOT, "<root>")
def plain(v):
    v = getattr(v, "value", v)
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, str):
        return scrub(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return dict((str(k), plain(x)) for k, x in v.items())
    return scrub(repr(v))
def digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read(8 << 20)).hexdigest()
    except Exception as e:
        return "unreadable:" + type(e).__name__
def fallback_config(path):
    name = os.path.basename(path)
    if name.endswith((".ini", ".cfg")):
        import configparser
        cp = configparser.RawConfigParser()
        cp.read(path, encoding="utf-8")
        for sec in ("pytest", "tool:pytest"):
            if cp.has_section(sec):
                return dict(cp.items(sec))
        return {} if name in ("pytest.ini", ".pytest.ini") else None
    return {"sha256": digest(path)}
def parse_config(path):
    try:
        from pathlib import Path
        try:
            from _pytest.config.findpaths import load_config_dict_from_file
        except ImportError:
            return plain(fallback_config(path))
        d = load_config_dict_from_file(Path(path))
        return None if d is None else plain(d)
    except BaseException as e:
        return {"error": scrub(type(e).__name__ + ": " + str(e))[:300]}
def determine():
    from pathlib import Path
    import _pytest.config.findpaths as fp
    tries = (
        lambda: fp.determine_setup(inifile=None, override_ini=None, args=TESTS, rootdir_cmd_arg=None, invocation_dir=Path(ROOT)),
        lambda: fp.determine_setup(inifile=None, args=TESTS, rootdir_cmd_arg=None, invocation_dir=Path(ROOT)),
        lambda: fp.determine_setup(None, TESTS, None),
    )
    for t in tries:
        try:
            res = t()
        except TypeError:
            continue
        return {"rootdir": rel(res[0]), "inifile": rel(res[1]) if res[1] else None, "inicfg": plain(dict(res[2]))}
    return {"error": "no known determine_setup signature"}
out = {"python": sys.version.split()[0]}
try:
    import pytest
    out["pytest"] = getattr(pytest, "__version__", "?")
except BaseException as e:
    out["pytest"] = None
try:
    out["setup"] = determine() if out["pytest"] else None
except BaseException as e:
    out["setup"] = {"error": scrub(type(e).__name__ + ": " + str(e))[:300]}
links, configs, hooks = {}, {}, {}
for dirpath, dirnames, filenames in os.walk(ROOT):
    dirnames[:] = sorted(d for d in dirnames if d != ".git")
    for name in dirnames + sorted(filenames):
        full = os.path.join(dirpath, name)
        if os.path.islink(full):
            links[rel(full)] = os.readlink(full)
    for name in filenames:
        full = os.path.join(dirpath, name)
        if name in CONFIG_NAMES:
            configs[rel(full)] = parse_config(full)
        if (name in HOOK_NAMES or name.endswith(".pth") or name == ".env" or name.startswith(".env.")
                or (name == "entry_points.txt" and dirpath.endswith((".dist-info", ".egg-info")))):
            hooks[rel(full)] = digest(full)
out["links"], out["configs"], out["hooks"] = links, configs, hooks
import_dirs = [ROOT]
for t in TESTS:
    d = os.path.dirname(os.path.join(ROOT, t))
    while d != ROOT and inside(d) and os.path.isfile(os.path.join(d, "__init__.py")):
        d = os.path.dirname(d)
    if inside(d) and d not in import_dirs:
        import_dirs.append(d)
setup = out.get("setup") or {}
pp = (setup.get("inicfg") or {}).get("pythonpath") if isinstance(setup, dict) else None
if isinstance(pp, str):
    pp = pp.split()
for entry in pp or []:
    d = os.path.realpath(os.path.join(ROOT, setup.get("rootdir") or ".", str(entry).replace("<root>", ROOT)))
    if inside(d) and d not in import_dirs:
        import_dirs.append(d)
stdlib = set(getattr(sys, "stdlib_module_names", ()))
if not stdlib:
    import sysconfig
    try:
        for n in os.listdir(sysconfig.get_paths()["stdlib"]):
            stdlib.add(n[:-3] if n.endswith(".py") else n)
    except OSError:
        pass
    stdlib.update(sys.builtin_module_names)
runner = set(m.split(".")[0] for m in sys.modules)
shadowable = stdlib | runner
SUFFIXES = (".py", ".pyc", ".so", ".pyd")
shadowing = {}
for d in import_dirs:
    try:
        names = sorted(os.listdir(d))
    except OSError:
        continue
    for n in names:
        full = os.path.join(d, n)
        mod, target = None, None
        if os.path.isdir(full):
            for init in ("__init__.py", "__init__.pyc"):
                if os.path.isfile(os.path.join(full, init)):
                    mod, target = n, os.path.join(full, init)
                    break
        elif n.endswith(SUFFIXES):
            mod, target = n.split(".")[0], full
        if mod and mod in shadowable:
            shadowing[rel(full)] = digest(target)
out["import_dirs"] = [rel(d) for d in import_dirs]
out["shadowing"] = shadowing
import configparser
eps = {}
for d in import_dirs + [p for p in sys.path if os.path.isdir(p)]:
    try:
        names = sorted(os.listdir(d))
    except OSError:
        continue
    for n in names:
        if not n.endswith((".dist-info", ".egg-info")):
            continue
        f = os.path.join(d, n, "entry_points.txt")
        if not os.path.isfile(f):
            continue
        cp = configparser.RawConfigParser()
        cp.optionxform = str
        try:
            cp.read(f, encoding="utf-8")
        except Exception as e:
            eps["unreadable:" + scrub(f)] = type(e).__name__
            continue
        if cp.has_section("pytest11"):
            for k, v in cp.items("pytest11"):
                eps[k + " @ " + (rel(f) if inside(f) else n)] = v
out["entry_points"] = eps
print("${STATIC_MARK}" + json.dumps(out, sort_keys=True), flush=True)
`;

/**
 * Python source of the runner probe (argv[1] = JSON list of the test paths, argv[2] = the marker).
 * Collection only; it reports at session end and again (if the session never finished) at exit.
 */
export const RUNNER_PROBE_PY = String.raw`
import json, os, sys
ROOT = os.path.realpath(os.getcwd())
ENV0 = dict(os.environ)
TESTS = json.loads(sys.argv[1])
MARK = sys.argv[2]
def inside(p):
    try:
        rp = os.path.realpath(p)
    except Exception:
        return False
    return rp == ROOT or rp.startswith(ROOT + os.sep)
def rel(p):
    return os.path.relpath(os.path.abspath(str(p)), ROOT).replace(os.sep, "/")
def scrub(s):
    return str(s).replace(ROOT, "<root>")
def plain(v):
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, str):
        return scrub(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return scrub(type(v).__name__)
def tree_modules():
    out = {}
    for name, m in list(sys.modules.items()):
        f = getattr(m, "__file__", None)
        if f and inside(f):
            out.setdefault(name.split(".")[0], rel(f))
    return out
import pytest
EARLY = tree_modules()
STDLIB = set(getattr(sys, "stdlib_module_names", ()))
def plugin_name(name, plugin):
    if plugin is None:
        return "blocked:" + str(name)
    f = getattr(plugin, "__file__", None)
    if f:
        mod = getattr(plugin, "__name__", "?")
        return mod + " @ " + rel(f) if inside(f) else mod
    t = type(plugin)
    return str(name) if not str(name).isdigit() else t.__module__ + "." + t.__name__
def describe(config):
    pm = config.pluginmanager
    plugins = sorted(set(plugin_name(n, p) for n, p in pm.list_name_plugin() if p is not PROBE))
    conftests = sorted(rel(getattr(m, "__file__", "?")) for m in getattr(pm, "_conftest_plugins", ()))
    try:
        addopts = plain(config.getini("addopts"))
    except Exception as e:
        addopts = "error:" + type(e).__name__
    options = dict((k, plain(v)) for k, v in sorted(vars(config.option).items()))
    env = dict((k, os.environ.get(k)) for k in sorted(set(ENV0) | set(os.environ))
               if ENV0.get(k) != os.environ.get(k) and k != "PYTEST_CURRENT_TEST")
    late = tree_modules()
    shadowed = sorted(set([k + " @ " + v for k, v in EARLY.items()] +
                          [k + " @ " + v for k, v in late.items() if k in STDLIB]))
    inipath = getattr(config, "inipath", None) or getattr(config, "inifile", None)
    return {
        "rootdir": rel(getattr(config, "rootpath", None) or config.rootdir),
        "inifile": rel(inipath) if inipath else None,
        "plugins": plugins, "conftests": conftests, "addopts": addopts,
        "pytest_addopts_env": os.environ.get("PYTEST_ADDOPTS"),
        "args": plain(list(config.invocation_params.args)) if hasattr(config, "invocation_params") else None,
        "options": options, "env_changes": env, "shadowed": shadowed,
    }
class Probe(object):
    report = None
    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        self.report = describe(session.config)
PROBE = Probe()
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider"] + TESTS, plugins=[PROBE])
sys.stdout.flush()
print("\n" + MARK + json.dumps({"exit": int(code), "report": PROBE.report}, sort_keys=True), flush=True)
`;

/** A fresh marker for one runner-probe run. */
export function runnerMark(): string {
  return `A2A-RUNNER-INVENTORY-${randomBytes(8).toString("hex")}:`;
}

/** POSIX single-quoting. */
function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A bash heredoc feeding `source` to `interpreter flags - args` (the script never touches the tree's files). */
function heredoc(interpreter: string, flags: string, source: string, args: readonly string[]): string {
  const tag = "A2A_PROBE_EOF";
  return `${interpreter} ${flags} - ${args.map(q).join(" ")} <<'${tag}'\n${source}\n${tag}\n`;
}

/** The bash command of the static probe; `python` is the interpreter the tests run with. */
export function staticProbeCommand(tests: readonly string[], python = "python3"): string {
  return heredoc(python, "-I -B", STATIC_PROBE_PY, [JSON.stringify(tests)]);
}

/** The bash command of the runner probe (`-B`: no bytecode written into the tree). */
export function runnerProbeCommand(tests: readonly string[], mark: string, python = "python3"): string {
  return heredoc(python, "-B", RUNNER_PROBE_PY, [JSON.stringify(tests), mark]);
}

/**
 * The JSON of the ONE line starting with `mark` in `stdout`, or why there is none
 * (no such line, several, unparsable).
 */
export function readProbeLine(stdout: string, mark: string): { value: unknown } | { error: string } {
  const lines = stdout.split("\n").filter((l) => l.startsWith(mark));
  if (lines.length === 0) return { error: "no report" };
  if (lines.length > 1) return { error: `${lines.length} reports` };
  try {
    return { value: JSON.parse(lines[0]!.slice(mark.length)) as unknown };
  } catch {
    return { error: "unparsable report" };
  }
}
