import { describe, expect, it } from 'vitest';
import { builtinProviders } from './builtins.js';
import { builtinSpecs } from './builtinSpecs.js';

describe('built-in backends', () => {
  it('the providers and the light spec list name the same backends, in the same order, with the same declarations', () => {
    expect(builtinProviders.map((p) => p.backend)).toEqual(builtinSpecs.map((s) => s.backend));
    builtinProviders.forEach((p, i) => {
      expect(p.fields).toBe(builtinSpecs[i]!.fields);
      expect(p.specSchema).toBe(builtinSpecs[i]!.specSchema);
    });
  });

  it('a backend declares each flag once', () => {
    for (const p of builtinProviders) {
      const flags = p.fields.filter((f) => f.flag).map((f) => f.flag!);
      expect(new Set(flags).size, p.backend).toBe(flags.length);
    }
  });
});
