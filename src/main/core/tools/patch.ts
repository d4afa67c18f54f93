// The `patch` tool: replace exact text in a file on the target; refuses when the text is missing or ambiguous.
import { SwitchboardError } from '../../../shared/errors.js';
import { PatchArgs, PatchResult } from '../../../shared/tools.js';
import { isBinary } from './readFile.js';
import { argText, defineTool } from './toolDef.js';

export const MAX_PATCH_BYTES = 8 * 1024 * 1024;

/** Count non-overlapping occurrences. */
export function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The pure part: new text and the number of replacements, or a clear refusal. */
export function applyPatch(
  text: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  path: string,
): { text: string; replacements: number } {
  const n = countOccurrences(text, oldString);
  if (n === 0) {
    const hint = /^\s*\d+\t/m.test(oldString)
      ? 'old_string seems to include read_file line numbers; leave out the "     N<tab>" prefixes'
      : 'read the file again; old_string must match exactly, whitespace and indentation included';
    throw new SwitchboardError('bad_request', `old_string was not found in ${path}`, hint);
  }
  if (n > 1 && !replaceAll) {
    throw new SwitchboardError(
      'bad_request',
      `old_string occurs ${n} times in ${path}`,
      'add surrounding lines to make it unique, or set replace_all: true',
    );
  }
  if (replaceAll) return { text: text.split(oldString).join(newString), replacements: n };
  const at = text.indexOf(oldString);
  return { text: text.slice(0, at) + newString + text.slice(at + oldString.length), replacements: 1 };
}

export const patchTool = defineTool({
  name: 'patch',
  title: 'Patch a file',
  description: 'Replace exact text in a file on an execution target.',
  args: PatchArgs,
  result: PatchResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  summary: (args) => argText(args, 'path'),
  approval: (args) => ({ kind: 'path', path: args.path, access: 'write' }),
  script: { doc: 'Replace exact text in a file; returns a dict with replacements.' },
  async handler(ctx, args) {
    const path = await ctx.sessions.resolvePath(ctx.snapshot, args.path);
    const st = await ctx.env.stat(path);
    if (st.type === 'missing')
      throw new SwitchboardError('bad_request', `no such file: ${path}`, 'create it with write_file');
    if (st.type !== 'file') throw new SwitchboardError('bad_request', `not a regular file: ${path}`);
    const buf = await ctx.env.readFile(path, MAX_PATCH_BYTES);
    if (isBinary(buf)) throw new SwitchboardError('unsupported', `${path} looks like a binary file; patch edits text`);
    const out = applyPatch(buf.toString('utf8'), args.old_string, args.new_string, args.replace_all ?? false, path);
    await ctx.env.writeFile(path, Buffer.from(out.text, 'utf8'));
    return { path, replacements: out.replacements };
  },
});
