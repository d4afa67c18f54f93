// Where a profile's running Core takes MCP, read from its core.json without zod, and the words for why there is none:
// `switchboard mcp` reads it again each time the Core it knew stops answering; coreFile.ts says the same problems.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../core/platform/index.js';

/** What the MCP bridge needs of core.json. */
export interface CoreEndpoint {
  mcpUrl: string;
  token: string;
  pid: number;
}

/** Why no Core is there: a message and a hint, as a SwitchboardError has them. */
export interface CoreProblem {
  problem: string;
  hint: string;
}

export const START_CORE_HINT = 'start one with `switchboard serve` or `npm start`';

export const noCoreFile = (path: string): CoreProblem => ({
  problem: `no Switchboard Core is running (no ${path})`,
  hint: START_CORE_HINT,
});
export const invalidCoreFile = (path: string): CoreProblem => ({
  problem: `${path} is not a valid core file`,
  hint: 'restart the Core (`switchboard serve`)',
});
export const coreExited = (path: string, pid: number): CoreProblem => ({
  problem: `no Switchboard Core is running (the one in ${path}, pid ${pid}, has exited)`,
  hint: START_CORE_HINT,
});

/** The Core core.json names and that still runs, or why there is none. */
export function readCoreEndpoint(home: string): CoreEndpoint | CoreProblem {
  const path = join(home, 'core.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // no file: no Core (a Core removes it as it stops)
    return noCoreFile(path);
  }
  let found: Record<string, unknown>;
  try {
    found = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // half a file, or not one of ours
    return invalidCoreFile(path);
  }
  const { mcp_url: mcpUrl, token, pid } = found ?? {};
  // The token goes into a header line: nothing in it may end the line.
  const valid =
    typeof mcpUrl === 'string' &&
    /^http:\/\/[^/?#\s]+\/\S*$/.test(mcpUrl) &&
    typeof token === 'string' &&
    /^[\x21-\x7e]+$/.test(token) &&
    Number.isSafeInteger(pid) &&
    (pid as number) > 0;
  if (!valid) return invalidCoreFile(path);
  if (!pidAlive(pid as number)) return coreExited(path, pid as number);
  return { mcpUrl, token, pid: pid as number };
}
