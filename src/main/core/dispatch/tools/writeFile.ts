// The `write_file` tool: the whole content of a file on the target; parent directories are created.
import type { z } from 'zod';
import type { WriteFileArgs } from '../../../../shared/tools.js';
import type { ToolContext } from '../dispatcher.js';

export async function writeFileTool(ctx: ToolContext, raw: Record<string, unknown>): Promise<Record<string, unknown>> {
  const args = raw as z.infer<typeof WriteFileArgs>;
  const path = await ctx.sessions.resolvePath(ctx.snapshot, args.path);
  const data = Buffer.from(args.content, 'utf8');
  await ctx.env.writeFile(path, data);
  return { path, bytes_written: data.length };
}
