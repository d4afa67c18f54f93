// The `search_files` tool: content (grep -E) or file-name (find -name) search, as one portable shell pipeline on the
// target.
import type { z } from 'zod';
import { SwitchboardError } from '../../../shared/errors.js';
import { SearchFilesArgs, SearchFilesResult } from '../../../shared/tools.js';
import { shellQuote } from '../platform/index.js';
import { argText, defineTool, type ToolContext } from './toolDef.js';

export const DEFAULT_SEARCH_LIMIT = 50;
const MAX_LINE_CHARS = 500;
/** Directories no search descends into: version-control data and installed dependencies. */
export const PRUNED_DIRS = ['.git', '.hg', '.svn', 'node_modules'];

export interface ContentMatch {
  path: string;
  line: number;
  text: string;
  /** A line around a match (with context > 0), not a match itself. */
  context?: true;
}

/** A find(1) glob from a search glob: `**` collapses to `*` (find's -path `*` already crosses `/`). */
export function findGlob(glob: string): { test: '-name' | '-path'; glob: string } {
  const g = glob.replace(/\*\*\/?/g, '*').replace(/\*+/g, '*');
  return g.includes('/')
    ? { test: '-path', glob: g.startsWith('*') || g.startsWith('/') ? g : `*/${g}` }
    : { test: '-name', glob: g };
}

/**
 * The pipeline: busybox-compatible (sh, find, grep -n -E -H, head). find prunes the usual dirs and hands files to
 * grep; head bounds the work. Errors (unreadable dirs) are dropped: what could be read is the answer.
 */
export function searchCommand(args: {
  mode: 'content' | 'files';
  pattern: string;
  root: string;
  fileGlob?: string;
  limit: number;
  context: number;
}): string {
  const prune = `\\( ${PRUNED_DIRS.map((d) => `-name ${shellQuote(d)}`).join(' -o ')} \\) -prune -o`;
  const root = shellQuote(args.root);
  if (args.mode === 'files') {
    const g = findGlob(args.pattern);
    return (
      `find ${root} ${prune} -type f ${g.test} ${shellQuote(g.glob)} -print 2>/dev/null | ` +
      `head -n ${args.limit + 1}`
    );
  }
  const name = args.fileGlob ? `${findGlob(args.fileGlob).test} ${shellQuote(findGlob(args.fileGlob).glob)} ` : '';
  const ctx = args.context > 0 ? `-C ${args.context} ` : '';
  // Each match can bring 2·context lines and a separator; keep enough lines to find limit+1 matches.
  const lines = (args.limit + 1) * (2 * args.context + 2);
  return (
    `find ${root} ${prune} -type f ${name}-exec grep -n -H -E ${ctx}-e ${shellQuote(toEre(args.pattern))} {} + ` +
    `2>/dev/null | head -n ${lines}`
  );
}

/** Agents write Perl classes; POSIX ERE (busybox, GNU) lacks \d and \s: spell them out outside brackets. */
export function toEre(pattern: string): string {
  const map: Record<string, string> = { d: '[0-9]', D: '[^0-9]', s: '[[:space:]]', S: '[^[:space:]]' };
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern[i + 1]!;
      out += !inClass && map[next] ? map[next] : ch + next;
      i++;
      continue;
    }
    if (ch === '[' && !inClass) inClass = true;
    else if (ch === ']' && inClass) inClass = false;
    out += ch;
  }
  return out;
}

/** Parse grep -n -H [-C] output: `path:N:text` for matches, `path-N-text` for context, `--` between groups. */
export function parseGrep(output: string): ContentMatch[] {
  const out: ContentMatch[] = [];
  for (const raw of output.split('\n')) {
    if (raw === '' || raw === '--') continue;
    const m = /^(.*?):(\d+):(.*)$/s.exec(raw);
    const c = m ? undefined : /^(.*?)-(\d+)-(.*)$/s.exec(raw);
    const hit = m ?? c;
    if (!hit) continue;
    const path = hit[1]!;
    let text = hit[3]!;
    if (text.length > MAX_LINE_CHARS) text = text.slice(0, MAX_LINE_CHARS) + ' …';
    out.push({ path, line: Number(hit[2]), text, ...(m ? {} : { context: true as const }) });
  }
  return out;
}

export const searchFilesTool = defineTool({
  name: 'search_files',
  title: 'Search files',
  description:
    'Search file contents (POSIX extended regex, as grep -E) or file names (glob) on an execution target; ' +
    '.git and node_modules are skipped.',
  args: SearchFilesArgs,
  result: SearchFilesResult,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  summary: (args) =>
    `${argText(args, 'target')} ${argText(args, 'pattern')}${args.path ? ' in ' + argText(args, 'path') : ''}`,
  approval: (args) => ({ kind: 'path', path: args.path ?? '.', access: 'read', tree: true }),
  script: {
    doc: 'Search contents (regex) or file names (glob); returns a dict with matches or files.',
    defaults: { target: 'content' },
  },
  handler: searchFiles,
});

async function searchFiles(ctx: ToolContext, args: z.infer<typeof SearchFilesArgs>): Promise<Record<string, unknown>> {
  const root = await ctx.sessions.resolvePath(ctx.snapshot, args.path ?? '.');
  const limit = args.limit ?? DEFAULT_SEARCH_LIMIT;
  const context = args.target === 'content' ? (args.context ?? 0) : 0;
  if (args.target === 'content') {
    try {
      new RegExp(args.pattern);
    } catch (err) {
      throw new SwitchboardError(
        'bad_request',
        `search_files: pattern is not a valid regular expression: ${(err as Error).message}`,
      );
    }
  }
  const st = await ctx.env.stat(root);
  if (st.type === 'missing') throw new SwitchboardError('bad_request', `no such directory: ${root}`);
  const command = searchCommand({
    mode: args.target,
    pattern: args.pattern,
    root,
    fileGlob: args.file_glob,
    limit,
    context,
  });
  const r = await ctx.env.exec(command, {
    cwd: await ctx.sessions.cwd(ctx.snapshot),
    timeoutMs: Math.min(ctx.snapshot.timeoutSec, 120) * 1000,
    maxOutputChars: 2_000_000,
    signal: ctx.signal,
  });
  const timedOut = r.timedOut ? { timed_out: true } : {};
  if (args.target === 'files') {
    const files = r.output.split('\n').filter((l) => l.startsWith('/') || l.startsWith(root));
    const truncated = files.length > limit;
    return {
      root,
      files: files.slice(0, limit),
      count: Math.min(files.length, limit),
      ...(truncated ? { truncated: true } : {}),
      ...timedOut,
    };
  }
  const all = parseGrep(r.output).filter((m) => m.path.startsWith(root));
  const matches: ContentMatch[] = [];
  let count = 0;
  let truncated = false;
  for (const m of all) {
    if (!m.context) {
      if (count === limit) {
        truncated = true;
        break;
      }
      count++;
    }
    matches.push(m);
  }
  if (truncated) {
    // Context lines read before the first dropped match may be its leading context: keep only the last match's.
    const last = lastMatch(matches);
    while (
      matches.length &&
      matches[matches.length - 1]!.context &&
      (matches[matches.length - 1]!.path !== last?.path || matches[matches.length - 1]!.line > last.line + context)
    )
      matches.pop();
  }
  return { root, matches, count, ...(truncated ? { truncated: true } : {}), ...timedOut };
}

function lastMatch(matches: ContentMatch[]): ContentMatch | undefined {
  for (let i = matches.length - 1; i >= 0; i--) if (!matches[i]!.context) return matches[i];
  return undefined;
}
