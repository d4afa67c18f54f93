// What a profile's Core keeps for the next one, so a page left open (and an MCP client's saved token) finds it again
// after a restart: the port, taken again when free, and the token. In state/endpoint.json, mode 0600, inside the
// profile that agent work cannot read; delete the file to have the next Core make a new token.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { atomicWriteSync } from '../core/platform/index.js';

const Endpoint = z.object({ port: z.number().int().min(1).max(65_535), token: z.string().min(32).max(128) });
export type Endpoint = z.infer<typeof Endpoint>;

export function endpointPath(home: string): string {
  return join(home, 'state', 'endpoint.json');
}

/** The last Core's port and token on this profile, if it kept them. */
export function lastEndpoint(home: string): Endpoint | undefined {
  try {
    return Endpoint.parse(JSON.parse(readFileSync(endpointPath(home), 'utf8')));
  } catch {
    // none kept, or damaged: a new one is chosen
    return undefined;
  }
}

/** Keeps this Core's port and token for the next one; a profile that cannot take the write only loses that. */
export function keepEndpoint(home: string, endpoint: Endpoint): void {
  const path = endpointPath(home);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    atomicWriteSync(path, JSON.stringify(endpoint) + '\n');
  } catch {
    // The next Core picks a new port and token; an open page then needs its link again (no temp file stays).
  }
}
