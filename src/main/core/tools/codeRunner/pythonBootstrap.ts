// The python side of execute_code: defines `switchboard_tools` in memory and runs the script; tool calls are framed on
// stdio.
import { shellQuote } from '../../platform/index.js';
import type { ToolDef } from '../toolDef.js';

/**
 * Protocol (all UTF-8, one JSON document per line):
 *  1. The Core writes a header to stdin: {"marker": "...", "code": "..."}.
 *  2. The bootstrap reads it, replaces sys.stdin by an empty stream (the real one carries replies only), and runs the
 * code.
 *  3. A tool call is written to the real stdout as MARKER + {"id", "tool", "args"} + "\n", after flushing what the
 *     script printed; the Core answers on stdin with {"id", "ok": true, "result"} or {"id", "ok": false, "error"}.
 * Everything else on stdout/stderr is the script's own output. Python 3.6+; only the standard library.
 */
const BOOTSTRAP_HEAD = String.raw`
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

`;

const BOOTSTRAP_TAIL = `sys.modules["switchboard_tools"] = _m
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

/** The tools a script may call: those whose declaration offers a script function. */
export function scriptTools(defs: readonly ToolDef[]): ToolDef[] {
  return defs.filter((d) => d.script !== undefined);
}

/** A JSON-able default as a Python literal. */
function pyLiteral(v: string | number | boolean): string {
  return typeof v === 'boolean' ? (v ? 'True' : 'False') : JSON.stringify(v);
}

/**
 * One Python function per script tool, its parameters read from the tool's argument schema: required arguments
 * first and positional, the optional ones as keywords defaulting to None (or the declared default). The
 * execution_target is left to **kw: the call runs on the script's own target whatever it says.
 */
export function scriptFunction(def: ToolDef): string {
  const shape = (def.args as { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape ?? {};
  const defaults = def.script?.defaults ?? {};
  const keys = Object.keys(shape).filter((k) => k !== 'execution_target');
  const required = keys.filter((k) => !(k in defaults) && !shape[k]!.safeParse(undefined).success);
  const optional = keys.filter((k) => !required.includes(k));
  const params = [
    ...required,
    ...optional.map((k) => `${k}=${k in defaults ? pyLiteral(defaults[k]!) : 'None'}`),
    '**kw',
  ];
  const doc = (def.script?.doc ?? def.description).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return [
    `def ${def.name}(${params.join(', ')}):`,
    `    """${doc}"""`,
    `    return _call(${JSON.stringify(def.name)}, dict(kw, ${keys.map((k) => `${k}=${k}`).join(', ')}))`,
    '',
  ].join('\n');
}

/** The whole bootstrap, with `switchboard_tools` offering the given tools. */
export function pythonBootstrap(defs: readonly ToolDef[]): string {
  const tools = scriptTools(defs);
  const names = tools.map((d) => d.name);
  const tuple = `(${names.join(', ')}${names.length === 1 ? ',' : ''})`;
  const register = `for _f in ${tuple}:\n    setattr(_m, _f.__name__, _f)\n`;
  return BOOTSTRAP_HEAD + tools.map(scriptFunction).join('\n') + register + BOOTSTRAP_TAIL;
}

/**
 * The shell command that starts the bootstrap on any POSIX target. Without python3 it says so and reads the script's
 * line before it exits: a write to an exec that has already ended makes Podman drop the exec's output (4.3 answers
 * with its attach error instead), so the reason would be lost.
 */
export function bootstrapCommand(defs: readonly ToolDef[]): string {
  const missing = `command -v python3 >/dev/null 2>&1 || { echo 'python3: not found'; read -r _; exit 127; }`;
  return (
    `${missing}\nPYTHONIOENCODING=utf-8 PYTHONDONTWRITEBYTECODE=1 exec python3 -u ` +
    `-c ${shellQuote(pythonBootstrap(defs))}`
  );
}
