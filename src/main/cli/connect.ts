// Connects a CLI command to the running Core found through core.json.
import { readCoreFile } from '../transport/coreFile.js';
import { connectCore } from '../transport/wsLink.js';
import { switchboardHome } from '../core/home.js';
import type { CoreClient } from '../../shared/client.js';

export async function withCore<T>(fn: (client: CoreClient) => Promise<T>): Promise<T> {
  const info = readCoreFile(switchboardHome());
  const { client, close } = await connectCore(info.ws_url, info.token);
  try {
    return await fn(client);
  } finally {
    close();
  }
}
