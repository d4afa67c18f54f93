// Flood check (not a test): a pane in the window (Chromium through a real `serve`) prints 200 MB; while it runs, the
// Core's RSS, the page's JS heap and how long the page takes to answer a click are sampled.
// Usage: node bench/flood.mjs [--mb 200] [--shot prefix] (screenshots of the page mid-flood and after, prefix-mid.png /
// -end.png). Needs `npm run build`. Goals (issue 13): Core and page memory bounded (they level off instead of growing
// with the flood), every click answered within 100 ms.
import { createRequire } from 'node:module';
import { pct, personPage, rssMb, startServe } from './harness.mjs';

const { chromium } = createRequire(import.meta.url)('playwright-core');
const mb = Number(process.argv[process.argv.indexOf('--mb') + 1]) || 200;
const shot = process.argv.includes('--shot') ? process.argv[process.argv.indexOf('--shot') + 1] : undefined;
const served = await startServe('terminal:\n  targets:\n    local: { backend: local, cwd: /tmp }\n');
const corePid = served.serve.pid;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// The page notes when each click reached it (the same clock as this process: one machine).
await page.addInitScript(() => {
  window.__clicks = [];
  document.addEventListener('click', () => window.__clicks.push(Date.now()), true);
});
const person = personPage(served.url);
await page.context().addCookies([person.cookie]);
await page.goto(`${person.address}?token=${served.url.token}`);
const pane = page.getByRole('region', { name: 'Pane 1' });
await pane.locator('.xterm').waitFor();
await page.waitForFunction(
  () => (document.querySelector('.xterm-rows')?.textContent ?? '').trim().length > 0,
  undefined,
  { timeout: 60_000 },
);

const heapMb = () => page.evaluate(() => performance.memory.usedJSHeapSize / 1048576);
const before = { core: rssMb(corePid), page: await heapMb() };
// Lines of text (what a build log or `cat` of a big file looks like to the terminal), then a marker.
await pane.locator('.xterm').click();
await page.keyboard.type(
  `yes 'flood line: the quick brown fox jumps over the lazy dog 0123456789' | head -c ${mb * 1_000_000}; ` +
    `echo FLOOD-$((40+2))`,
);
const t0 = Date.now();
await page.keyboard.press('Enter');

const samples = [];
const clicks = [];
// A click on the pane's header, sent as one input event (a locator's click would first wait on the busy page for
// its checks): from sending it to the page's handler running.
const box = await pane.getByRole('status', { name: 'Working directory' }).boundingBox();
const finished = () =>
  page.evaluate(() => document.querySelector('.xterm-rows')?.textContent?.includes('FLOOD-42') ?? false);
while (!(await finished())) {
  if (process.env.FLOOD_DEBUG) console.error('sample', Date.now() - t0);
  samples.push({ at: Date.now() - t0, core: rssMb(corePid), page: await heapMb() });
  const n = await page.evaluate(() => window.__clicks.length);
  const sent = Date.now();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForFunction((k) => window.__clicks.length > k, n);
  clicks.push((await page.evaluate(() => window.__clicks.at(-1))) - sent);
  if (shot && samples.length === 10) await page.screenshot({ path: `${shot}-mid.png` });
  await new Promise((r) => setTimeout(r, 500));
}
if (shot) await page.screenshot({ path: `${shot}-end.png` });
const secs = (Date.now() - t0) / 1000;
const quarter = (k) =>
  [0, 1, 2, 3]
    .map((q) =>
      Math.max(
        ...samples
          .slice(Math.floor((samples.length * q) / 4), Math.max(1, Math.floor((samples.length * (q + 1)) / 4)))
          .map((s) => s[k]),
      ).toFixed(0),
    )
    .join(' / ');
console.log(
  `${mb} MB flood through a pane in Chromium: ${secs.toFixed(1)} s (${(mb / secs).toFixed(1)} ` +
    `MB/s), ${samples.length} samples`,
);
console.log(`Core RSS: ${before.core.toFixed(0)} MB before; max per quarter of the flood ${quarter('core')} MB`);
console.log(`page JS heap: ${before.page.toFixed(0)} MB before; max per quarter of the flood ${quarter('page')} MB`);
console.log(
  `click answered: p50 ${pct(clicks, 50)} ms, p95 ${pct(clicks, 95)} ms, ` +
    `max ${Math.max(...clicks)} ms over ${clicks.length} clicks (goal ≤ 100 ms)`,
);
await browser.close();
await served.stop();
