// How the window names a backend and whether it offers a pane, from backends.list and a target's flags.
import { describe, expect, it } from 'vitest';
import type { BackendInfo } from '../../shared/specFields.js';
import type { ProviderFlags } from '../../shared/targets.js';
import { backendView, offersPane } from './backends.js';

const flags = (over: Partial<ProviderFlags>): ProviderFlags => ({
  is_remote: false,
  is_container: false,
  skip_container_guards: false,
  supports_streams: true,
  supports_pty: true,
  supports_stdin: true,
  strip_env_keys: [],
  cache_path_base: '~/.cache/switchboard',
  session_isolated_when_nonpersistent: false,
  default_cwd: '~',
  ...over,
});
const info = (over: Partial<BackendInfo>): BackendInfo => ({
  backend: 'x',
  flags: flags({}),
  fields: [],
  exactly_one: [],
  ...over,
});

describe('offersPane', () => {
  it.each([
    ['a streaming backend', flags({ supports_streams: true }), true],
    ['a backend that says it does not stream', flags({ supports_streams: false, supports_pty: false }), false],
    ['streams without a pty still get a pane', flags({ supports_streams: true, supports_pty: false }), true],
    ['a target without flags (plugin not loaded): offered, the Core says why not', undefined, true],
  ])('%s', (_, f, want) => expect(offersPane(f)).toBe(want));
});

describe('backendView', () => {
  it('names a plugin backend by its display name and draws the fallback icon', () => {
    expect(
      backendView('bwrap', info({ backend: 'bwrap', display_name: 'Bubblewrap sandbox', plugin: 'bwrap' }), true),
    ).toEqual({
      label: 'Bubblewrap sandbox',
      line: 'Bubblewrap sandbox (backend bwrap, plugin bwrap)',
      fallbackIcon: true,
    });
  });
  it('a built-in keeps its name and its own icon', () => {
    expect(backendView('ssh', info({ backend: 'ssh', display_name: 'SSH' }), true)).toEqual({
      label: 'ssh',
      line: 'ssh',
      fallbackIcon: false,
    });
    expect(backendView('local', info({ backend: 'local' }), true)).toEqual({
      label: 'local',
      line: 'local',
      fallbackIcon: false,
    });
  });
  it('a backend the Core does not list (its plugin disabled) shows its name and asks', () => {
    expect(backendView('bwrap', undefined, true)).toMatchObject({
      label: 'bwrap',
      fallbackIcon: true,
      line: expect.stringContaining('is its plugin enabled?'),
    });
    // Before backends.list answered, nothing is claimed.
    expect(backendView('local', undefined, false)).toEqual({ label: 'local', line: 'local', fallbackIcon: false });
  });
});
