import { describe, expect, it } from 'vitest';
import { builtinProviders } from '../backends/providers.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { keyOrder, parseConfig, specGeneration } from './loadConfig.js';
import type { z } from 'zod';

const schemas = new Map<string, z.ZodType>(builtinProviders.map((p) => [p.backend, p.specSchema]));
const parse = (text: string) => parseConfig(text, schemas);

function errorOf(text: string): string {
  try {
    parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(SwitchboardError);
    expect((err as SwitchboardError).code).toBe('bad_config');
    return (err as SwitchboardError).message;
  }
  throw new Error('expected a config error');
}

describe('parseConfig errors', () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'misspelt target key',
      'terminal:\n  targets:\n    box: { backend: ssh, ssh_hots: a, ssh_user: u }\n',
      /unknown key "ssh_hots" in target "box".*did you mean "ssh_host"/,
    ],
    ['unknown top-level key', 'termnal:\n  timeout: 3\n', /unknown top-level key "termnal".*did you mean "terminal"/],
    [
      'unknown backend',
      'terminal:\n  targets:\n    x: { backend: dokcer, docker_image: a }\n',
      /unknown backend "dokcer".*did you mean "docker"/,
    ],
    ['missing backend', 'terminal:\n  targets:\n    x: { cwd: /tmp }\n', /terminal.targets.x: missing "backend"/],
    ['ssh without host', 'terminal:\n  targets:\n    x: { backend: ssh }\n', /target "x": ssh_host/],
    [
      'docker needs image xor container',
      'terminal:\n  targets:\n    x: { backend: docker }\n',
      /exactly one of docker_image or docker_container/,
    ],
    [
      'bad default target',
      'terminal:\n  default_target: nope\n  targets:\n    a: { backend: local }\n',
      /default_target "nope" is not a configured target/,
    ],
    ['yaml syntax', 'terminal:\n  targets: [\n', /config.yaml: line \d+/],
    [
      'bad port type',
      'terminal:\n  targets:\n    x: { backend: ssh, ssh_host: h, ssh_port: "22a" }\n',
      /target "x": ssh_port/,
    ],
    [
      'unknown terminal key',
      'terminal:\n  defualt_target: a\n',
      /unknown key "defualt_target" in terminal.*did you mean "default_target"/,
    ],
    ['bad target name', 'terminal:\n  targets:\n    "a b": { backend: local }\n', /target "a b"/],
    ['bad approvals mode', 'approvals:\n  mode: maybe\n', /approvals: mode/],
    ['top level not a map', '- a\n- b\n', /top level must be a mapping/],
    [
      'duplicate key',
      'terminal:\n  timeout: 3\n  timeout: 4\n',
      /config.yaml: line 3: map keys must be unique \("timeout"/,
    ],
    [
      'duplicate target',
      'terminal:\n  targets:\n    a: { backend: local }\n    b: { backend: local }\n    a: { backend: local }\n',
      /line 5: .*"a" is there twice/,
    ],
    [
      'names differing only in case',
      'terminal:\n  targets:\n    local: { backend: local }\n    LOCAL: { backend: local }\n',
      /targets "local" and "LOCAL" differ only in case/,
    ],
    // Node's timers overflow past 2^31-1 ms: such a timeout made every command time out at once.
    [
      'terminal.timeout past a day',
      'terminal:\n  timeout: 2147484\n',
      /terminal.timeout is 2147484 seconds; it is at most 86400/,
    ],
    [
      'target timeout past a day',
      'terminal:\n  targets:\n    a: { backend: local, timeout: 3000000 }\n',
      /target "a": timeout/,
    ],
    ['approvals.timeout past a day', 'approvals:\n  timeout: 99999999\n', /approvals.timeout is at most 86400/],
    [
      'env_passthrough with a value',
      'approvals:\n  env_passthrough: [OPENAI_API_KEY=sk-1]\n',
      /approvals.env_passthrough lists variable names/,
    ],
    [
      'env_passthrough with a pattern',
      'approvals:\n  env_passthrough: ["*_TOKEN"]\n',
      /approvals.env_passthrough lists variable names/,
    ],
    ['env_passthrough not a list', 'approvals:\n  env_passthrough: GITHUB_TOKEN\n', /approvals: env_passthrough/],
    [
      'more than 1024 targets',
      `terminal:\n  targets:\n${Array.from({ length: 1025 }, (_, i) => `    t${i}: { backend: local }\n`).join('')}`,
      /1025 targets, over the limit of 1024/,
    ],
    ['over 1 MiB', `# ${'x'.repeat(1024 * 1024)}\nterminal: {}\n`, /over the 1 MiB limit/],
  ];
  for (const [name, text, pattern] of cases) it(name, () => expect(errorOf(text)).toMatch(pattern));
});

describe('parseConfig', () => {
  it('gives one local target for an empty file', () => {
    const c = parse('');
    expect([...c.targets.keys()]).toEqual(['local']);
    expect(c.defaultTarget).toBe('local');
  });
  it('inherits top-level terminal keys that the backend knows', () => {
    const c = parse(
      'terminal:\n  cwd: /srv\n  ssh_user: agent\n  timeout: 60\n  targets:\n    a: { backend: ' +
        'local }\n    b: { backend: ssh, ssh_host: h }\n    c: { backend: ssh, ssh_host: h, ssh_user: root, ' +
        'cwd: /x }\n',
    );
    expect(c.targets.get('a')!.spec).toEqual({ backend: 'local', cwd: '/srv' });
    expect(c.targets.get('b')!.spec).toEqual({ backend: 'ssh', ssh_host: 'h', ssh_user: 'agent', cwd: '/srv' });
    expect(c.targets.get('c')!.spec).toMatchObject({ ssh_user: 'root', cwd: '/x' });
    expect(c.timeoutSec).toBe(60);
    expect(c.defaultTarget).toBe('a');
  });
  it('loads the legacy single-backend form as target "default"', () => {
    const c = parse('terminal:\n  backend: ssh\n  ssh_host: compute\n  ssh_user: agent\n  ssh_port: 2222\n');
    expect([...c.targets.keys()]).toEqual(['default']);
    expect(c.targets.get('default')!.spec).toEqual({
      backend: 'ssh',
      ssh_host: 'compute',
      ssh_user: 'agent',
      ssh_port: 2222,
    });
    expect(c.defaultTarget).toBe('default');
  });
  it('changes generation exactly when the spec changes', () => {
    const a = parse('terminal:\n  targets:\n    a: { backend: local, cwd: /x }\n').targets.get('a')!.generation;
    const b = parse('terminal:\n  targets:\n    a: {cwd: /x, backend: local}\n').targets.get('a')!.generation;
    const c = parse('terminal:\n  targets:\n    a: { backend: local, cwd: /y }\n').targets.get('a')!.generation;
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(specGeneration({ backend: 'local' })).toMatch(/^c[0-9a-f]{11}$/);
  });
  it('keeps the generations it gave before (a new one would be a new runtime identity)', () => {
    // Hashed with every key ordered by localeCompare, as before keyOrder.
    const spec = {
      backend: 'ssh',
      ssh_host: 'compute',
      ssh_user: 'agent',
      ssh_port: 2222,
      ssh_key: '~/.ssh/k',
      cwd: '~/p',
    };
    expect(specGeneration(spec)).toBe('c7d60c0d3997');
    const sandboxed = { mode: 'workspace', writable: ['~/.cache'], network: true };
    expect(specGeneration({ backend: 'local', cwd: '/w', sandbox: sandboxed })).toBe('c986ae454424');
    const env = { PATH_X: '1', abc: '2', Z9: '3', a_1: '4', a1: '5' };
    expect(specGeneration({ backend: 'docker', docker_image: 'python:3.12', docker_env: env })).toBe('c59f9c510374');
  });
  it('orders keys as localeCompare does', () => {
    const keys = ['', '_', 'a', 'a_', 'a_b', 'ab', 'b', 'ssh_host', 'sshhost', 'A', 'a1', 'a_1', 'Z9', '\u00e9'];
    const chars = 'abcz_';
    for (let i = 0; i < 300; i++)
      keys.push(Array.from({ length: i % 6 }, (_, j) => chars[(i * 7 + j * 3 + (i >> 3)) % chars.length]).join(''));
    const differ = keys.flatMap((a) =>
      keys.filter((b) => Math.sign(keyOrder(a, b)) !== Math.sign(a.localeCompare(b))).map((b) => [a, b]),
    );
    expect(differ).toEqual([]);
  });
  it('reads approvals', () => {
    expect(parse('approvals:\n  mode: deny\n  timeout: 30\n').approvals).toEqual({
      mode: 'deny',
      timeoutSec: 30,
      envPassthrough: [],
    });
    expect(parse('approvals:\n  env_passthrough: [GITHUB_TOKEN, _X1]\n').approvals.envPassthrough).toEqual([
      'GITHUB_TOKEN',
      '_X1',
    ]);
  });
});
