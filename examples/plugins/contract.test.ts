// The shared provider contract suite on both example plugins, each through a real Core and its plugin host process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerContract } from '../../src/main/core/backends/providerContract.js';
import { exampleCore } from './examplesHarness.js';
import { startServer } from './http_sandbox/server.mjs';

// Every runtime identity has a /workspace of its own; the suite's scratch folder, shared by its identities, is a bind.
providerContract('bwrap example plugin', async () => {
  const { core, close } = await exampleCore(['bwrap']);
  const provider = core.plugins.provider('bwrap');
  if (!provider) throw new Error(`bwrap did not load: ${JSON.stringify(core.plugins.list())}`);
  const shared = mkdtempSync(join(tmpdir(), 'sb-bwrap-contract-'));
  return {
    provider,
    ctx: core.providerContext,
    scratch: '/scratch',
    spec: { backend: 'bwrap', binds: [`${shared}:/scratch`] },
    close: async () => {
      await close();
      rmSync(shared, { recursive: true, force: true });
    },
  };
});

providerContract('http_sandbox example plugin (against its reference server)', async () => {
  const token = `contract-${process.pid}`;
  process.env.SB_CONTRACT_SANDBOX_TOKEN = token;
  const root = mkdtempSync(join(tmpdir(), 'sb-http-sandbox-contract-'));
  const server = await startServer({ token, root });
  const { core, close } = await exampleCore(['http_sandbox']);
  const provider = core.plugins.provider('http_sandbox');
  if (!provider) throw new Error(`http_sandbox did not load: ${JSON.stringify(core.plugins.list())}`);
  return {
    provider,
    ctx: core.providerContext,
    scratch: root,
    spec: { backend: 'http_sandbox', api_url: server.url, token_env: 'SB_CONTRACT_SANDBOX_TOKEN' },
    close: async () => {
      await close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
      delete process.env.SB_CONTRACT_SANDBOX_TOKEN;
    },
  };
});
