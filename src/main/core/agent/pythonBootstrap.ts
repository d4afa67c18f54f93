// The python side of execute_code: defines `switchboard_tools` in memory and runs the script; tool calls are framed on stdio.
import { shellQuote } from '../sessions/shellWrap.js';

/** Functions the script can import from switchboard_tools, mapped to the tools they call. */
export const scriptTools = ['terminal', 'read_file', 'write_file', 'patch', 'search_files'] as const;
export type ScriptTool = (typeof scriptTools)[number];

/**
 * Protocol (all UTF-8, one JSON document per line):
 *  1. The Core writes a header to stdin: {"marker": "...", "code": "..."}.
 *  2. The bootstrap reads it, replaces sys.stdin by an empty stream (the real one carries replies only), and runs the code.
 *  3. A tool call is written to the real stdout as MARKER + {"id", "tool", "args"} + "\n", after flushing what the
 *     script printed; the Core answers on stdin with {"id", "ok": true, "result"} or {"id", "ok": false, "error"}.
 * Everything else on stdout/stderr is the script's own output. Python 3.6+; only the standard library.
 */
export const PYTHON_BOOTSTRAP = String.raw`
import io, json, sys, traceback, types
_rin = sys.stdin.buffer
_hdr = json.loads(_rin.readline().decode("utf-8"))
_mark = _hdr["marker"]
_rout = sys.stdout
sys.stdin = io.StringIO("")
_seq = [0]

class SwitchboardToolError(Exception):
    """A tool call made through switchboard_tools failed; the message says why."""

def _call(tool, args):
    args = dict((k, v) for k, v in args.items() if v is not None)
    _seq[0] += 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    _rout.write(_mark + json.dumps({"id": _seq[0], "tool": tool, "args": args}) + "\n")
    _rout.flush()
    line = _rin.readline()
    if not line:
        raise SwitchboardToolError("the Switchboard Core closed the tool channel")
    reply = json.loads(line.decode("utf-8"))
    if not reply.get("ok"):
        raise SwitchboardToolError(reply.get("error") or "the tool call failed")
    return reply.get("result")

_m = types.ModuleType("switchboard_tools")
_m.__doc__ = "Switchboard tools; every call runs on the execution target this script runs on."
_m.SwitchboardToolError = SwitchboardToolError

def terminal(command, workdir=None, timeout=None, background=None, **kw):
    """Run a shell command on this target; returns a dict with output, exit_code, cwd (or session_id)."""
    return _call("terminal", dict(kw, command=command, workdir=workdir, timeout=timeout, background=background))

def read_file(path, offset=None, limit=None, **kw):
    """Read a text file; returns a dict with content (numbered lines) and total_lines."""
    return _call("read_file", dict(kw, path=path, offset=offset, limit=limit))

def write_file(path, content, **kw):
    """Write a whole file, creating parent directories; returns a dict with bytes_written."""
    return _call("write_file", dict(kw, path=path, content=content))

def patch(path, old_string, new_string, replace_all=None, **kw):
    """Replace exact text in a file; returns a dict with replacements."""
    return _call("patch", dict(kw, path=path, old_string=old_string, new_string=new_string, replace_all=replace_all))

def search_files(pattern, target="content", path=None, file_glob=None, limit=None, context=None, **kw):
    """Search contents (regex) or file names (glob); returns a dict with matches or files."""
    return _call("search_files", dict(kw, pattern=pattern, target=target, path=path, file_glob=file_glob, limit=limit, context=context))

for _f in (terminal, read_file, write_file, patch, search_files):
    setattr(_m, _f.__name__, _f)
sys.modules["switchboard_tools"] = _m
sys.argv = ["<execute_code>"]
_g = {"__name__": "__main__", "__builtins__": __builtins__}
try:
    exec(compile(_hdr["code"], "<execute_code>", "exec"), _g)
except SystemExit:
    raise
except BaseException:
    _t, _v, _tb = sys.exc_info()
    traceback.print_exception(_t, _v, _tb.tb_next)
    sys.stderr.flush()
    sys.exit(1)
`;

/** The shell command that starts the bootstrap on any POSIX target. */
export function bootstrapCommand(): string {
  return `PYTHONIOENCODING=utf-8 PYTHONDONTWRITEBYTECODE=1 exec python3 -u -c ${shellQuote(PYTHON_BOOTSTRAP)}`;
}
