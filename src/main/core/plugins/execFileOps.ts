// File operations made of shell commands, for environments that have exec but no file operations of their own.
import { posix } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import type { FileStat } from '../backends/provider.js';
import { shellQuote } from '../backends/shell/shellWrap.js';

/** Runs one `sh -c` command line as given (no wrapping), stdout and stderr merged, with optional stdin. */
export type RawExec = (command: string, opts: { stdin?: string; timeoutMs: number }) => Promise<{ output: string; exitCode: number }>;

/** Output lines start after this tag, so a login banner or a stray message cannot be read as file content. */
const tag = '__SB_FILE__';
const fileTimeoutMs = 60_000;

export async function execStat(exec: RawExec, path: string): Promise<FileStat> {
  const p = shellQuote(path);
  const r = await exec(
    `if [ -d ${p} ]; then echo ${tag}d 0; elif [ -f ${p} ]; then echo ${tag}f $(wc -c < ${p} 2>/dev/null | tr -d ' '); ` +
    `elif [ -e ${p} ]; then echo ${tag}o 0; else echo ${tag}m 0; fi`,
    { timeoutMs: fileTimeoutMs },
  );
  const line = r.output.slice(r.output.lastIndexOf(tag) + tag.length).trim();
  const [kind, size] = line.split(/\s+/);
  if (r.output.lastIndexOf(tag) < 0 || !kind) throw new SwitchboardError('internal', `could not stat ${path}: ${r.output.trim().slice(0, 200)}`);
  const type = kind === 'd' ? 'directory' : kind === 'f' ? 'file' : kind === 'o' ? 'other' : 'missing';
  return { type, size: type === 'file' ? Number(size) || 0 : 0 };
}

export async function execReadFile(exec: RawExec, path: string, maxBytes: number): Promise<Buffer> {
  const st = await execStat(exec, path);
  if (st.type === 'missing') throw new SwitchboardError('bad_request', `no such file: ${path}`);
  if (st.type !== 'file') throw new SwitchboardError('bad_request', `not a regular file: ${path}`);
  if (st.size > maxBytes) throw new SwitchboardError('too_large', `${path} is ${st.size} bytes; the limit is ${maxBytes}`, 'read a part of it with offset and limit, or use terminal with head/tail');
  const r = await exec(`echo ${tag}; head -c ${maxBytes} -- ${shellQuote(path)} | base64 || echo __SB_FAIL__`, { timeoutMs: fileTimeoutMs });
  const at = r.output.indexOf(tag);
  if (at < 0 || r.exitCode !== 0 || r.output.includes('__SB_FAIL__')) throw new SwitchboardError('internal', `could not read ${path}: ${r.output.trim().slice(0, 200)}`);
  return Buffer.from(r.output.slice(at + tag.length).replace(/\s+/g, ''), 'base64');
}

/** Base64 characters per command line: well under the 128 KiB a single argument may have on Linux. */
const chunkChars = 64_000;

/**
 * Writes the whole file (parents created): base64 in chunks appended to a temp file by plain command lines (no
 * stdin needed, which not every remote exec API carries), decoded, then renamed over the target.
 */
export async function execWriteFile(exec: RawExec, path: string, data: Buffer): Promise<void> {
  const p = shellQuote(path);
  const b64 = shellQuote(`${path}.sb-${process.pid}-${Date.now()}.b64`);
  const text = data.toString('base64');
  const fail = (r: { output: string; exitCode: number }): never => {
    throw new SwitchboardError('bad_request', `could not write ${path}: ${r.output.trim().slice(0, 200) || `exit ${r.exitCode}`}`);
  };
  const first = await exec(`mkdir -p -- ${shellQuote(posix.dirname(path))} && : > ${b64} && echo ${tag}ok`, { timeoutMs: fileTimeoutMs });
  if (!first.output.includes(`${tag}ok`)) fail(first);
  try {
    for (let at = 0; at < text.length; at += chunkChars) {
      const r = await exec(`printf %s '${text.slice(at, at + chunkChars)}' >> ${b64} && echo ${tag}ok`, { timeoutMs: fileTimeoutMs });
      if (!r.output.includes(`${tag}ok`)) fail(r);
    }
    const done = await exec(`base64 -d < ${b64} > ${b64}.out && mv -f -- ${b64}.out ${p} && echo ${tag}ok`, { timeoutMs: fileTimeoutMs });
    if (!done.output.includes(`${tag}ok`)) fail(done);
  } finally {
    await exec(`rm -f -- ${b64} ${b64}.out`, { timeoutMs: fileTimeoutMs }).catch(() => undefined);
  }
}

export async function execHome(exec: RawExec): Promise<string> {
  const r = await exec(`printf '${tag}%s\\n' "$HOME"`, { timeoutMs: fileTimeoutMs });
  const at = r.output.lastIndexOf(tag);
  const home = at < 0 ? '' : (r.output.slice(at + tag.length).split('\n')[0] ?? '').trim();
  return home.startsWith('/') ? home : '/';
}
