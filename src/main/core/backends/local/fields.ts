// The local backend's spec, declared once: its OS sandbox setting (cwd and timeout are common to every backend).
import type { z } from 'zod';
import { declareSpec } from '../../../../shared/specFields.js';

export const localSpec = declareSpec({
  backend: 'local',
  fields: [
    {
      key: 'sandbox',
      type: 'sandbox',
      label: 'Sandbox',
      flag: '--sandbox',
      advanced: true,
      default: 'workspace',
      help:
        'where agent work runs: off, or { mode: workspace, writable: [paths], network: true|false } (default: ' +
        'sandboxed, writes only in the cwd tree)',
      placeholder: 'off',
    },
  ],
  describe: (s) => (s.sandbox === 'off' ? 'unsandboxed' : ''),
});

export const LocalSpec = localSpec.specSchema;
export type LocalSpec = z.infer<typeof LocalSpec>;
