import { describe, expect, it } from 'vitest';
import { approvalSandboxNotes, approvalScopes, sandboxMark } from './sandboxView.js';
import type { SandboxInfo } from '../shared/targets.js';

describe('sandboxMark', () => {
  const table: Array<[string, SandboxInfo | undefined, ReturnType<typeof sandboxMark>]> = [
    ['no field: nothing shown', undefined, undefined],
    [
      'unsandboxed with its reason',
      { state: 'unsandboxed', reason: 'sandbox: off in its spec' },
      {
        state: 'unsandboxed',
        label: 'unsandboxed',
        description: 'Agent commands here run with your own powers on this machine: sandbox: off in its spec',
      },
    ],
    [
      'unsandboxed without a reason',
      { state: 'unsandboxed' },
      {
        state: 'unsandboxed',
        label: 'unsandboxed',
        description: 'Agent commands here run with your own powers on this machine',
      },
    ],
    [
      'bubblewrap without network',
      { state: 'sandboxed', kind: 'bubblewrap', network: false },
      {
        state: 'sandboxed',
        label: 'sandboxed',
        description: 'Agent commands here run in a bubblewrap sandbox, without network',
      },
    ],
    [
      'seatbelt with network',
      { state: 'sandboxed', kind: 'seatbelt', network: true },
      {
        state: 'sandboxed',
        label: 'sandboxed',
        description: 'Agent commands here run in a Seatbelt sandbox, with network',
      },
    ],
    [
      'a container that holds its work in: what does, in one line',
      { state: 'sandboxed', kind: 'container', network: false, confinement: 'a container you attached: runs as root' },
      {
        state: 'sandboxed',
        label: 'sandboxed',
        description: 'Agent commands here run in a container you attached: runs as root',
      },
    ],
    [
      'a container that lets its work out: unsandboxed, with the reason',
      { state: 'unsandboxed', kind: 'container', reason: 'it is privileged (--privileged)', confinement: 'x' },
      {
        state: 'unsandboxed',
        label: 'unsandboxed',
        description:
          'Agent commands here run with the powers of the host its container runs on: it is privileged (--privileged)',
      },
    ],
    [
      'an SSH host with bubblewrap: sandboxed there',
      { state: 'sandboxed', kind: 'bubblewrap', network: true, host: 'ci@build-01:22' },
      {
        state: 'sandboxed',
        label: 'sandboxed',
        description: 'Agent commands here run in a bubblewrap sandbox on ci@build-01:22, with network',
      },
    ],
    [
      "an SSH host without bubblewrap: the account's powers there, not the person's here",
      { state: 'unsandboxed', host: 'ci@build-01:22', reason: 'bubblewrap (bwrap) is not installed on the host' },
      {
        state: 'unsandboxed',
        label: 'unsandboxed',
        description:
          'Agent commands here run with the full powers of ci@build-01:22 on its host: ' +
          'bubblewrap (bwrap) is not installed on the host',
      },
    ],
    [
      'a sandbox of no named kind',
      { state: 'sandboxed' },
      { state: 'sandboxed', label: 'sandboxed', description: 'Agent commands here run in an OS sandbox' },
    ],
  ];
  for (const [name, info, mark] of table) it(name, () => expect(sandboxMark(info)).toEqual(mark));
});

describe('approvalSandboxNotes and approvalScopes', () => {
  const table: Array<[string, Parameters<typeof approvalSandboxNotes>[0], string[], string[]]> = [
    ['a sandboxed call says nothing more', {}, [], ['once', 'session', 'always']],
    [
      'an unsandboxed command',
      { unsandboxed: true },
      ['This target is unsandboxed: the command runs with your own powers on this machine.'],
      ['once', 'session', 'always'],
    ],
    [
      'an unsandboxed file change',
      { unsandboxed: true, subject: 'path' },
      ['This target is unsandboxed: the file is changed with your own powers on this machine.'],
      ['once', 'session', 'always'],
    ],
    [
      'an unsandboxed code run',
      { unsandboxed: true, subject: 'code' },
      ['This target is unsandboxed: the code runs with your own powers on this machine.'],
      ['once', 'session', 'always'],
    ],
    [
      'leaving the sandbox: once only',
      { outside_sandbox: true },
      [
        'The agent asks to run this one command outside its sandbox: ' +
          'it would run with your own powers on this machine.',
        'It runs in a fresh shell with your environment: variables the agent exported in its sandbox are not carried.',
      ],
      ['once'],
    ],
    [
      'leaving the sandbox says so even when also flagged unsandboxed',
      { outside_sandbox: true, unsandboxed: true },
      [
        'The agent asks to run this one command outside its sandbox: ' +
          'it would run with your own powers on this machine.',
        'It runs in a fresh shell with your environment: variables the agent exported in its sandbox are not carried.',
      ],
      ['once'],
    ],
    [
      'a call in a container that holds it in says what does',
      {
        sandbox: {
          state: 'sandboxed',
          kind: 'container',
          confinement: 'a container Switchboard made: no capabilities',
        },
      },
      ['The command runs in a container Switchboard made: no capabilities.'],
      ['once', 'session', 'always'],
    ],
    [
      'a file change in a container that lets it out: unsandboxed, with the reason',
      {
        unsandboxed: true,
        subject: 'path',
        sandbox: { state: 'unsandboxed', kind: 'container', reason: "it shares the host's processes (--pid host)" },
      },
      [
        'This target is unsandboxed: the file is changed with the powers of the host its container runs on, ' +
          "since it shares the host's processes (--pid host).",
      ],
      ['once', 'session', 'always'],
    ],
    [
      'a local target keeps its own words when its sandbox info comes along',
      { unsandboxed: true, sandbox: { state: 'unsandboxed', reason: 'sandbox: off in its spec' } },
      ['This target is unsandboxed: the command runs with your own powers on this machine.'],
      ['once', 'session', 'always'],
    ],
    [
      'an SSH target without a sandbox, and a call let out of one there: the account on its host',
      {
        unsandboxed: true,
        sandbox: { state: 'unsandboxed', host: 'ci@build-01:22', reason: 'sandbox: off in its spec' },
      },
      ['This target is unsandboxed: the command runs with the full powers of ci@build-01:22 on its host.'],
      ['once', 'session', 'always'],
    ],
    [
      "a call on /tmp of a sandboxed SSH target: its host's /tmp is not the one",
      { private_tmp: true, sandbox: { state: 'sandboxed', kind: 'bubblewrap', host: 'ci@build-01:22' } },
      ["/tmp here is this target's own private /tmp in its sandbox, not its host's /tmp."],
      ['once', 'session', 'always'],
    ],
    [
      "a sandboxed call on /tmp: the sandbox's own",
      { private_tmp: true },
      ["/tmp here is this target's own private /tmp in its sandbox, not this machine's /tmp."],
      ['once', 'session', 'always'],
    ],
  ];
  for (const [name, a, notes, scopes] of table) {
    it(name, () => {
      expect(approvalSandboxNotes(a)).toEqual(notes);
      expect(approvalScopes(a)).toEqual(scopes);
    });
  }
});
