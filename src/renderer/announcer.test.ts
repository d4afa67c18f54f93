import { describe, expect, it } from 'vitest';
import type { ProcessInfo } from '../shared/api.js';
import type { PendingApproval } from '../shared/approvals.js';
import type { TargetInfo } from '../shared/targets.js';
import { approvalAnnouncements, finishedAnnouncements, unreachableAnnouncements } from './announcer.js';

const approval = (id: string, over: Partial<PendingApproval> = {}): PendingApproval => ({
  id,
  kind: 'command',
  title: 'Approve command',
  execution_target: 'alpha',
  created_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-01T00:10:00Z',
  command: 'rm -rf build',
  client: 'mcp',
  ...over,
});

const target = (name: string, health?: 'checking' | 'reachable' | 'unreachable', problem?: string): TargetInfo => ({
  name,
  generation: 'g1',
  source: 'config',
  state: 'active',
  backend: 'ssh',
  spec: {},
  is_default: false,
  ...(health ? { health: { status: health } } : {}),
  ...(problem ? { problem } : {}),
});

const proc = (id: string, status: ProcessInfo['status'], exit_code: number | null = null): ProcessInfo => ({
  session_id: id,
  execution_target: 'alpha',
  generation: 'g1',
  command: 'make test',
  cwd: '/w',
  status,
  exit_code,
  started_at: '2026-01-01T00:00:00Z',
  ended_at: status === 'running' ? null : '2026-01-01T00:01:00Z',
  output_chars: 0,
});

describe('what the live region says', () => {
  it('announces each request for approval once, its secret masked', () => {
    const said = new Set<string>();
    const first = approval('a1', { command: 'curl -u admin:Hunter2Secret https://x.invalid/' });
    expect(approvalAnnouncements([first], said)).toEqual([
      'Approval needed: An agent (mcp) wants to run curl -u admin:[redacted] https://x.invalid/ on alpha.',
    ]);
    // The list changes (a second request): only the new one is said.
    const second = approval('a2', {
      kind: 'host_key',
      host_key: { host: 'h', port: 22, key_type: 'ssh-ed25519', fingerprint: 'SHA256:x' },
    });
    expect(approvalAnnouncements([first, second], said)).toEqual([
      'Approval needed: trust the host key of h:22 for target alpha?',
    ]);
    expect(approvalAnnouncements([first, second], said)).toEqual([]);
  });

  it.each([
    ['checking → unreachable', [target('box', 'checking')], [target('box', 'unreachable', 'refused')], 1],
    ['reachable → unreachable', [target('box', 'reachable')], [target('box', 'unreachable')], 1],
    ['still unreachable', [target('box', 'unreachable')], [target('box', 'unreachable')], 0],
    // Added while the window is open, its first probe's answer in the same batch of events.
    ['new and already unreachable', [], [target('box', 'unreachable')], 1],
    ['back up', [target('box', 'unreachable')], [target('box', 'reachable')], 0],
  ])('a target %s: %i announcement(s)', (_, before, after, n) => {
    const said = unreachableAnnouncements(before, after);
    expect(said).toHaveLength(n);
    if (n) expect(said[0]).toMatch(/^Target box is unreachable/);
  });

  it('says the problem of a target that went down', () => {
    expect(unreachableAnnouncements([target('box')], [target('box', 'unreachable', 'connection refused')])).toEqual([
      'Target box is unreachable: connection refused.',
    ]);
  });

  it.each([
    ['exits', proc('p', 'running'), proc('p', 'exited', 2), ['Background process on alpha exited with 2: make test.']],
    ['is killed', proc('p', 'running'), proc('p', 'killed'), ['Background process on alpha was killed: make test.']],
    ['runs on', proc('p', 'running'), proc('p', 'running'), []],
    ['had ended already', proc('p', 'exited', 0), proc('p', 'exited', 0), []],
  ])('a process that %s', (_, before, after, expected) => {
    expect(finishedAnnouncements({ p: before }, { p: after })).toEqual(expected);
  });

  it('does not announce a process first seen finished', () => {
    expect(finishedAnnouncements({}, { p: proc('p', 'exited', 0) })).toEqual([]);
  });
});
