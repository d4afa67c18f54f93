// The local backend's spec, declared once: no fields of its own (cwd and timeout are common to every backend).
import type { z } from 'zod';
import { declareSpec } from '../../../../shared/specFields.js';

export const localSpec = declareSpec({
  backend: 'local',
  fields: [],
  describe: () => '',
});

export const LocalSpec = localSpec.specSchema;
export type LocalSpec = z.infer<typeof LocalSpec>;
