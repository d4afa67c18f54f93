// The stdin of a background process judged as what reads it: lines assembled across writes, a shell's variables kept
// from one write to the next, REPLs and SQL clients in their own language.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCommandPolicy, type CommandPolicy } from './policy/commandPolicy.js';
import { inputLanguageOf, StdinJudge } from './stdinJudge.js';

let policy: CommandPolicy;
beforeAll(async () => {
  policy = await loadCommandPolicy({ profile: '/home/agent/.switchboard' });
});

/** Writes one chunk after another to one process; each is judged, and let through unless refused (as the Core does). */
function feeder(command: string) {
  const judge = new StdinJudge();
  return (data: string) => {
    const p = judge.prepare('p1', { command, cwd: '/home/agent/work' }, data);
    if (p.text === '') {
      p.commit(false);
      return { verdict: 'safe', reasons: '', text: '' };
    }
    const j = policy.judge(
      { kind: 'input', data: p.text, language: p.language },
      { home: '/home/agent', cwd: '/home/agent/work', ...(p.session ? { session: p.session } : {}) },
    );
    if (j.verdict !== 'hardline') p.commit(j.unfinished === true);
    return { verdict: j.verdict, reasons: j.reasons.map((r) => r.text).join(' | '), text: p.text };
  };
}

describe('what reads a process stdin', () => {
  it.each([
    ['bash', 'shell'],
    ['sh -i', 'shell'],
    ['bash -s', 'shell'],
    ['sudo -s', 'shell'],
    ['FOO=1 nohup bash', 'shell'],
    ['ssh host', 'shell'],
    ['docker exec -i box sh', 'shell'],
    ['bash script.sh', 'other'],
    ['bash -c "cat"', 'other'],
    ['python3', 'python'],
    ['python3 -i', 'python'],
    ['python3 server.py', 'other'],
    ['node', 'node'],
    ['irb', 'ruby'],
    ['psql -d app', 'sql'],
    ['sqlite3 db.sqlite', 'sql'],
    ['mysql -u root', 'sql'],
    ['cat', 'other'],
    ['tail -f log | grep x', 'other'],
  ])('%j → %s', (command, language) => expect(inputLanguageOf(command)).toBe(language));
});

describe('a background shell', () => {
  it('assembles a split delete from variables set in earlier writes', () => {
    const write = feeder('bash');
    expect(write('x=r\n').verdict).toBe('safe');
    expect(write('y=m\n').verdict).toBe('safe');
    expect(write('z=$x$y\n').verdict).toBe('safe');
    const last = write('$z -rf /home/agent/canary\n');
    expect(last.verdict).toBe('dangerous');
    expect(last.reasons).toContain('recursive delete');
  });

  it('a command name from values it cannot know asks', () => {
    const write = feeder('bash');
    write('read v\n');
    expect(write('$v -rf /home/agent/canary\n').reasons).toContain('command name computed');
  });

  it('judges a line split across writes once it is whole: a split shutdown is hardline', () => {
    const write = feeder('bash');
    expect(write('shut').verdict).toBe('safe');
    const whole = write('down -h now\n');
    expect(whole.text).toBe('shutdown -h now\n');
    expect(whole.verdict).toBe('hardline');
  });

  it('a refused line stays in the process: what follows it is judged with it', () => {
    const write = feeder('bash');
    expect(write('rm -rf /').verdict).toBe('safe');
    expect(write('\n').verdict).toBe('hardline');
    // The refused "\n" never reached the shell: `rm -rf /` still waits there for the rest of its line.
    const next = write('usr\n');
    expect(next.text).toBe('rm -rf /usr\n');
    expect(next.verdict).toBe('hardline');
  });

  it('keeps the cwd a cd moved to', () => {
    const write = feeder('bash');
    write('cd /\n');
    expect(write('rm -rf usr\n').verdict).toBe('hardline');
  });

  it('judges a loop when it is closed, with its body', () => {
    const write = feeder('bash');
    expect(write('for c in rm; do\n').verdict).toBe('safe');
    expect(write('$c -rf /home/agent/canary\n').verdict).toBe('dangerous');
    expect(write('done\n').reasons).toContain('recursive delete');
    expect(write('ls\n').verdict).toBe('safe');
  });

  it('everyday input passes', () => {
    const write = feeder('bash');
    for (const line of ['ls -la\n', 'echo $HOME\n', 'x=1\n', 'echo $x\n', 'cd /tmp && pwd\n'])
      expect(write(line).verdict).toBe('safe');
  });
});

describe('interpreters and SQL clients', () => {
  it('a python REPL is judged as python, with names bound before', () => {
    const write = feeder('python3 -i');
    expect(write('import os\n').verdict).toBe('safe');
    expect(write("cmd = 'rm -rf /home/agent/canary'\n").verdict).toBe('safe');
    expect(write('os.system(cmd)\n').reasons).toContain('recursive delete');
    expect(write("os.system('shutdown -h now')\n").verdict).toBe('hardline');
    expect(write('print(1 + 1)\n').verdict).toBe('safe');
  });

  it('node is judged as JavaScript', () => {
    const write = feeder('node');
    expect(write("require('child_process').execSync('rm -rf /home/agent/canary')\n").reasons).toContain(
      'recursive delete',
    );
  });

  it('psql: destructive statements split over writes, and shell escapes', () => {
    const write = feeder('psql -d app');
    expect(write('DROP TABLE ').verdict).toBe('safe');
    expect(write('users\n').verdict).toBe('safe');
    expect(write(';\n').reasons).toContain('drops table users');
    expect(write('\\! rm -rf /home/agent/canary\n').reasons).toContain('recursive delete');
    expect(write('SELECT 1;\n').verdict).toBe('safe');
  });

  it('input to a program nothing here reads is judged leniently as shell, with its variables', () => {
    const write = feeder('cat');
    expect(write('hello $x\n').verdict).toBe('safe');
    expect(write('rm -rf /\n').verdict).toBe('hardline');
    // `sh -c 'cat | sh'` reads stdin as shell after all.
    const piped = feeder("sh -c 'cat | sh'");
    for (const data of ['x=r\n', 'y=m\n', 'z=$x$y\n']) expect(piped(data).verdict).toBe('safe');
    expect(piped('$z -rf /home/agent/canary\n').reasons).toContain('recursive delete');
  });
});
