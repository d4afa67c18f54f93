// The `read_file` tool: numbered lines from a text file on the target, in pages of at most ~100 KB.
import { SwitchboardError } from '../../../shared/errors.js';
import { ReadFileArgs, ReadFileResult } from '../../../shared/tools.js';
import { shellQuote } from '../platform/index.js';
import type { z } from 'zod';
import { argText, defineTool, type ToolContext } from './toolDef.js';

export const DEFAULT_READ_LINES = 2000;
/** Most chars of numbered content one call returns; the rest comes with next_offset. */
export const MAX_READ_CHARS = 100_000;
/** Files up to this size are read whole through Environment.readFile; bigger ones are sliced on the target. */
export const WHOLE_READ_BYTES = 8 * 1024 * 1024;

/** `cat -n` style: the 1-based line number right-aligned in 6 columns, a tab, the line. */
export function numberLine(n: number, line: string): string {
  return `${String(n).padStart(6)}\t${line}`;
}

export interface Page {
  content: string;
  lines_returned: number;
  next_offset?: number;
  truncated?: boolean;
}

/** Number lines[0..] as starting at `first`, stopping at `limit` lines or MAX_READ_CHARS. */
export function pageLines(
  lines: string[],
  first: number,
  limit: number,
  hasMoreAfter: boolean,
  maxChars = MAX_READ_CHARS,
): Page {
  const out: string[] = [];
  let size = 0;
  let truncated = false;
  for (let i = 0; i < lines.length && i < limit; i++) {
    let text = numberLine(first + i, lines[i]!);
    if (size + text.length + 1 > maxChars) {
      if (out.length > 0) {
        truncated = true;
        break;
      }
      // One line longer than the whole page: cut it and say so.
      text = text.slice(0, maxChars - 40) + ` … [line cut at ${maxChars - 40} chars]`;
    }
    out.push(text);
    size += text.length + 1;
  }
  const n = out.length;
  const more = truncated || n < lines.length || hasMoreAfter;
  return {
    content: out.length ? out.join('\n') + '\n' : '',
    lines_returned: n,
    ...(more ? { next_offset: first + n } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read a file',
  description:
    'Read a text file on an execution target. content has cat -n style line numbers ("     1\\t…": ' +
    'number right-aligned in 6 columns, a tab, the line); at most limit lines and ~100 KB per call, ' +
    'with total_lines and next_offset when more is left.',
  args: ReadFileArgs,
  result: ReadFileResult,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  summary: (args) => argText(args, 'path'),
  approval: (args) => ({ kind: 'path', path: args.path, access: 'read' }),
  script: { doc: 'Read a text file; returns a dict with content (numbered lines) and total_lines.' },
  handler: readFile,
});

async function readFile(ctx: ToolContext, args: z.infer<typeof ReadFileArgs>): Promise<Record<string, unknown>> {
  const path = await ctx.sessions.resolvePath(ctx.snapshot, args.path);
  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_READ_LINES;
  const st = await ctx.env.stat(path);
  if (st.type === 'missing')
    throw new SwitchboardError(
      'bad_request',
      `no such file: ${path}`,
      `relative paths resolve against the target's cwd (${await ctx.sessions.cwd(ctx.snapshot)})`,
    );
  if (st.type !== 'file')
    throw new SwitchboardError(
      'bad_request',
      `not a regular file: ${path}`,
      st.type === 'directory' ? 'use search_files with target "files" to list a directory' : undefined,
    );

  if (st.size <= WHOLE_READ_BYTES) {
    const buf = await ctx.env.readFile(path, WHOLE_READ_BYTES);
    if (isBinary(buf))
      throw new SwitchboardError(
        'unsupported',
        `${path} looks like a binary file (${buf.length} bytes)`,
        'inspect it with terminal (xxd, file, strings)',
      );
    const lines = splitLines(buf.toString('utf8'));
    const page = pageLines(lines.slice(offset - 1), offset, limit, false);
    return { path, ...page, offset, total_lines: lines.length };
  }
  // A big file: count and slice on the target, so only the page crosses the wire. `wc -l` counts newlines, so a last
  // line without one is added when the file's last byte is not a newline ($(…) drops a newline, leaving nothing).
  const q = shellQuote(path);
  const end = offset + limit - 1;
  const count = `n=$(wc -l < ${q}); [ -n "$(tail -c 1 ${q})" ] && n=$((n + 1)); echo "$n"`;
  const r = await ctx.env.exec(
    `${count}; echo __SB_SPLIT__; sed -n '${offset},${end}p;${end}q' ${q} | head -c ${MAX_READ_CHARS * 4}`,
    {
      cwd: await ctx.sessions.cwd(ctx.snapshot),
      timeoutMs: 60_000,
      maxOutputChars: MAX_READ_CHARS * 5,
      signal: ctx.signal,
    },
  );
  const at = r.output.indexOf('__SB_SPLIT__\n');
  if (r.exitCode !== 0 || at < 0)
    throw new SwitchboardError('internal', `could not read ${path}: ${r.output.split('\n')[0] ?? ''}`);
  const total = Number(r.output.slice(0, at).trim());
  const lines = splitLines(r.output.slice(at + '__SB_SPLIT__\n'.length));
  const page = pageLines(lines, offset, limit, offset + lines.length - 1 < total);
  return { path, ...page, offset, total_lines: Number.isFinite(total) ? total : undefined };
}
