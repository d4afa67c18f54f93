// The `write_file` tool: the whole content of a file on the target; parent directories are created.
import { WriteFileArgs, WriteFileResult } from '../../../shared/tools.js';
import { argText, defineTool } from './toolDef.js';

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write a file',
  description: 'Write a whole file on an execution target, creating parent directories.',
  args: WriteFileArgs,
  result: WriteFileResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // The content never goes to the feed or the audit: only its size.
  summary: (args) => `${argText(args, 'path')} (${argText(args, 'content').length} chars)`,
  approval: (args) => ({ kind: 'path', path: args.path, access: 'write' }),
  script: { doc: 'Write a whole file, creating parent directories; returns a dict with bytes_written.' },
  async handler(ctx, args) {
    const path = await ctx.sessions.resolvePath(ctx.snapshot, args.path);
    const data = Buffer.from(args.content, 'utf8');
    await ctx.env.writeFile(path, data);
    return { path, bytes_written: data.length };
  },
});
