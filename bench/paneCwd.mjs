// Benchmark (not a test): how soon a pane's header follows `cd`, per backend: from Enter in the window (Chromium
// through a real `serve`) to the header's working directory painted anew. Local always; SSH and Docker where the test
// services run (bash scripts/test-env.sh up). Usage: node bench/paneCwd.mjs [--rounds N]. Needs `npm run build`.
// Goal (issue 39): p95 ≤ 500 ms on every backend.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchTargets, pct, personPage, startServe, testService } from './harness.mjs';

const { chromium } = createRequire(import.meta.url)('playwright-core');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 20;
const ssh = testService('ssh');
const docker = testService('docker');
// A home of the bench's own, whose shell prints a plain prompt and reports its cwd as the window's panes set it up to.
const userHome = mkdtempSync(join(tmpdir(), 'sb-bench-home-'));
mkdirSync(userHome, { recursive: true });
writeFileSync(join(userHome, '.bashrc'), 'PS1="\\w \\$ "\n');
process.env.HOME = userHome;
process.env.SHELL = '/bin/bash';
delete process.env.PROMPT_COMMAND;
const served = await startServe((home) => benchTargets(home, { ssh, docker }));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// The page notes the wall-clock time of the frame in which the header first shows each directory.
await page.addInitScript(() => {
  // The terminal's rows as lines (xterm's DOM renderer: one element a row).
  window.__screen = () =>
    [...document.querySelectorAll('.xterm-rows > div')].map((r) => r.textContent.replace(/\u00a0/g, ' ')).join('\n');
  window.__cwdAt = new Map();
  new MutationObserver(() => {
    const text = document.querySelector('[aria-label="Working directory"]')?.textContent ?? '';
    if (window.__cwdAt.has(text)) return;
    window.__cwdAt.set(text, 0);
    requestAnimationFrame(() => window.__cwdAt.set(text, Date.now()));
  }).observe(document, { subtree: true, childList: true, characterData: true });
});
const person = personPage(served.url);
await page.context().addCookies([person.cookie]);
await page.goto(`${person.address}?token=${served.url.token}`);
const pane = page.getByRole('region', { name: 'Pane 1' });
await pane.locator('.xterm').waitFor();

const shownAt = async (dir) => {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const t = await page.evaluate((d) => window.__cwdAt.get(d), dir);
    if (t) return t;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`the header never showed ${dir}`);
};
/**
 * Runs a line and waits until its output marker and the prompt after it are on the screen: keys typed before a shell's
 * line editor is back may be read as the answer to its own queries (busybox asks where the cursor is).
 */
let marks = 0;
const runLine = async (line) => {
  const n = ++marks;
  await page.keyboard.type(`${line}; echo SB-$((${n}+100000))\n`);
  await page.waitForFunction((m) => new RegExp(`^SB-${m}\\s*$[^]*[$#] *$`, 'm').test(window.__screen()), n + 100000, {
    timeout: 30_000,
  });
};

/** Until the new shell runs what is typed (keys typed while a shell starts may be lost: that is not measured here). */
const ready = async (target) => {
  for (let i = 0; i < 20; i++) {
    await page.keyboard.type(`echo SB$((40+2))-${target}\n`);
    const seen = await page
      .waitForFunction((t) => window.__screen().includes(t), `SB42-${target}`, {
        timeout: 3000,
      })
      .then(
        () => true,
        () => false,
      );
    if (seen) break;
  }
};
const report = (target, times) => {
  const at = (p) => pct(times, p).toFixed(0);
  console.log(
    `${target.padEnd(6)} Enter → header shows the new cwd, ${times.length} cds: p50 ${at(50)} ms, p95 ${at(95)} ms, ` +
      `max ${at(100)} ms (goal ≤ 500 ms)`,
  );
};
let failed = false;
for (const target of ['local', ...(ssh ? ['ssh'] : []), ...(docker ? ['docker'] : [])]) {
  await pane.getByRole('combobox', { name: 'Target' }).selectOption(target);
  await pane.locator('.xterm').click();
  await ready(target);
  const times = [];
  try {
    for (let i = 0; i <= rounds; i++) {
      // A directory the header has not shown yet, made before the clock starts.
      const dir = `/tmp/sb-cwd-${process.pid}-${target}-${i}`;
      await runLine(`mkdir -p ${dir}; clear`);
      await page.keyboard.type(`cd ${dir}`);
      const start = Date.now();
      await page.keyboard.press('Enter');
      const t = await shownAt(dir);
      // The first round is left out: it warms the page's and the shell's paths.
      if (i > 0) times.push(t - start);
      else if (process.env.BENCH_DEBUG) console.log(`${target} first cd: ${t - start} ms`);
      await runLine('true');
    }
    report(target, times);
  } catch (err) {
    failed = true;
    console.log(`${target.padEnd(6)} FAILED: ${err.message}`);
    if (process.env.BENCH_SHOT) await page.screenshot({ path: process.env.BENCH_SHOT });
  }
  await runLine(`cd /tmp && rm -rf /tmp/sb-cwd-${process.pid}-${target}-*`);
}
if (!ssh) console.log('ssh    skipped: the test sshd is not up (bash scripts/test-env.sh up)');
if (!docker) console.log('docker skipped: the test dockerd is not up (bash scripts/test-env.sh up)');
await browser.close();
await served.stop();
rmSync(userHome, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
