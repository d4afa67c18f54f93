import { describe, expect, it } from 'vitest';
import type { SandboxInfo, TargetSpec } from '../../../shared/targets.js';
import { runsOnThisMachine, targetSandbox } from './targetSandbox.js';

const spec: TargetSpec = { backend: 'local' };
const bwrap: SandboxInfo = { state: 'sandboxed', kind: 'bubblewrap' };
const off: SandboxInfo = { state: 'unsandboxed', reason: 'sandbox: off in its spec' };
const found: SandboxInfo = { state: 'sandboxed', kind: 'container' };
const declares = (info: SandboxInfo | undefined) => ({ sandboxFor: () => info });
const local = { is_remote: false, is_container: false };

describe('targetSandbox: as found, else as declared', () => {
  it.each([
    ['found outranks the declaration', found, declares(bwrap), found],
    ['the declaration when nothing was found', undefined, declares(off), off],
    ['a declaration that says nothing', undefined, declares(undefined), undefined],
    ['a backend without sandboxFor (a plugin)', undefined, {}, undefined],
    ['no backend', undefined, undefined, undefined],
  ] as const)('%s', (_why, f, declaration, want) => {
    expect(targetSandbox(f, declaration, spec)).toEqual(want);
  });
});

describe('runsOnThisMachine: local work that its declaration places', () => {
  it.each([
    ['local, sandboxed', local, declares(bwrap), true],
    ['local, unsandboxed', local, declares(off), true],
    ['local, declaration silent', local, declares(undefined), false],
    ['remote', { ...local, is_remote: true }, declares(bwrap), false],
    ['a container', { ...local, is_container: true }, declares(found), false],
    ['no backend', local, undefined, false],
  ] as const)('%s', (_why, flags, declaration, want) => {
    expect(runsOnThisMachine(flags, declaration, spec)).toBe(want);
  });
});
