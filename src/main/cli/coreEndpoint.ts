// The running Core's MCP endpoint, read from core.json by `switchboard mcp`'s relay without zod (which the relay does
// not load): the same file, the same checks and the same words as transport/coreFile.ts's readCoreFile.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../core/processes/processAlive.js';

/** Where the Core takes MCP (its loopback /mcp), the agent token core.json holds, and the Core's process. */
export interface CoreEndpoint {
  url: URL;
  token: string;
  pid: number;
}

/** No Core to relay to: the message and the hint of the no_core error readCoreFile would throw. */
export class NoCore extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

const START_ONE = 'start one with `switchboard serve` or `npm start`';

/** The endpoint of the Core core.json names in `home`; NoCore when there is none, or its process is gone. */
export function readCoreEndpoint(home: string): CoreEndpoint {
  const path = join(home, 'core.json');
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    throw new NoCore(`no Switchboard Core is running (no ${path})`, START_ONE);
  }
  let endpoint: CoreEndpoint | undefined;
  try {
    const info = JSON.parse(raw) as Record<string, unknown>;
    const { mcp_url: url, token, pid } = info;
    if (typeof url === 'string' && typeof token === 'string' && Number.isSafeInteger(pid))
      endpoint = { url: new URL(url), token, pid: pid as number };
  } catch {
    // not JSON, or a URL that does not parse: said below as for any file that is not a core file
  }
  if (endpoint?.url.protocol !== 'http:')
    throw new NoCore(`${path} is not a valid core file`, 'restart the Core (`switchboard serve`)');
  if (!pidAlive(endpoint.pid))
    throw new NoCore(`no Switchboard Core is running (the one in ${path}, pid ${endpoint.pid}, has exited)`, START_ONE);
  return endpoint;
}

/** Whether two endpoints are the same Core, reached the same way. */
export function sameEndpoint(a: CoreEndpoint, b: CoreEndpoint): boolean {
  return a.pid === b.pid && a.url.href === b.url.href && a.token === b.token;
}
