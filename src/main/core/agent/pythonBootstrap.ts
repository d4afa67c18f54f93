// The python side of execute_code: defines `switchboard_tools` in memory and runs the script; tool calls are framed on stdio.
import { shellQuote } from '../backends/shell/shellWrap.js';

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
import io, sys, traceback, types
try:
    import json as _json
    _dumps, _loads = _json.dumps, _json.loads
except ImportError:
    # Debian's python3-minimal (common in slim images) has no json module: a small codec for our own frames.
    import re as _re
    _ESC = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
    _STR = _re.compile(r'"((?:[^"\\]|\\.)*)"', _re.S)
    _NUM = _re.compile(r'-?\d+(\.\d+)?([eE][-+]?\d+)?')
    _UNI = _re.compile(r'\\(u[0-9a-fA-F]{4}|.)', _re.S)
    def _unesc(m):
        e = m.group(1)
        return chr(int(e[1:], 16)) if e[0] == "u" else _ESC.get(e, e)
    def _loads(s):
        pos = [0]
        def ws():
            while pos[0] < len(s) and s[pos[0]] in " \t\r\n":
                pos[0] += 1
        def val():
            ws()
            c = s[pos[0]]
            if c == "{" or c == "[":
                pos[0] += 1
                out = {} if c == "{" else []
                ws()
                if s[pos[0]] in "}]":
                    pos[0] += 1
                    return out
                while True:
                    if c == "{":
                        k = val()
                        ws()
                        pos[0] += 1
                        out[k] = val()
                    else:
                        out.append(val())
                    ws()
                    d = s[pos[0]]
                    pos[0] += 1
                    if d in "}]":
                        return out
            if c == '"':
                m = _STR.match(s, pos[0])
                pos[0] = m.end()
                raw = m.group(1)
                if "\\" not in raw:
                    return raw
                t = _UNI.sub(_unesc, raw)
                return t.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if "\\u" in raw else t
            for word, v in (("true", True), ("false", False), ("null", None)):
                if s.startswith(word, pos[0]):
                    pos[0] += len(word)
                    return v
            m = _NUM.match(s, pos[0])
            pos[0] = m.end()
            return float(m.group(0)) if (m.group(1) or m.group(2)) else int(m.group(0))
        return val()
    def _dumps(v):
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return '"' + "".join(("\\" + c) if c in '"\\' else c if c >= " " else "\\u%04x" % ord(c) for c in v) + '"'
        if isinstance(v, dict):
            return "{" + ",".join(_dumps(str(k)) + ":" + _dumps(x) for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ",".join(_dumps(x) for x in v) + "]"
        raise TypeError("cannot send a %s to a tool" % type(v).__name__)
_rin = sys.stdin.buffer
_hdr = _loads(_rin.readline().decode("utf-8"))
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
    _rout.write(_mark + _dumps({"id": _seq[0], "tool": tool, "args": args}) + "\n")
    _rout.flush()
    line = _rin.readline()
    if not line:
        raise SwitchboardToolError("the Switchboard Core closed the tool channel")
    reply = _loads(line.decode("utf-8"))
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
