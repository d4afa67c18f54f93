// Renders assets/icon.svg to assets/icon.png (512×512) with Debian's Chromium; run after changing the SVG.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const page = await browser.newPage({ viewport: { width: 512, height: 512 } });
const svg = readFileSync(join(root, 'assets/icon.svg'), 'utf8');
await page.setContent(
  `<html><body style="margin:0;background:transparent"><img width="512" height="512" ` +
    `src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}"></body></html>`,
);
await page.screenshot({ path: join(root, 'assets/icon.png'), omitBackground: true });
await browser.close();
