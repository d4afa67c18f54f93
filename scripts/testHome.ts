// Every test process gets a HOME of its own (vitest setupFiles): shells the tests start never read the machine's rc
// files. Root's ~/.bashrc here runs `pyenv init`, whose rehash lock, left by a shell a test ended mid-rc, made every
// later login shell on the machine wait 60 s. Tests that need a particular home still set their own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.SB_TEST_HOME) {
  const home = mkdtempSync(join(tmpdir(), 'sb-test-home-'));
  writeFileSync(join(home, '.bashrc'), 'PS1="\\w \\$ "\n');
  process.env.SB_TEST_HOME = home;
  process.env.HOME = home;
}
