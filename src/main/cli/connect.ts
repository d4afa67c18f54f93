// Connects a CLI command to the running Core found through core.json.
import { readCoreFile } from '../transport/coreFile.js';
import { connectCore } from '../transport/wsLink.js';
import { switchboardHome } from '../core/platform/index.js';
import type { CoreClient } from '../../shared/client.js';
import { SwitchboardError } from '../../shared/errors.js';

export async function withCore<T>(fn: (client: CoreClient) => Promise<T>): Promise<T> {
  const info = readCoreFile(switchboardHome());
  const { client, close } = await connectCore(info.ws_url, info.token);
  try {
    return await fn(client);
  } finally {
    close();
  }
}

/** Whether a Core is serving the profile `home` (its core file is there and answers for a live process). */
export function coreRunning(home: string): boolean {
  try {
    readCoreFile(home);
    return true;
  } catch (err) {
    if (err instanceof SwitchboardError && err.code === 'no_core') return false;
    throw err;
  }
}
