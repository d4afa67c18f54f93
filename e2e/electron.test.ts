// The desktop window itself: runs only where the Electron binary is installed (it cannot be downloaded on CI machines).
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { _electron as electron } from 'playwright-core';

const require = createRequire(import.meta.url);
const root = join(__dirname, '..');

function electronBinary(): string | undefined {
  try {
    const dir = dirname(require.resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    if (!existsSync(pathFile)) return undefined;
    const p = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
    return existsSync(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

const bin = electronBinary();
const display = process.env.DISPLAY || process.env.WAYLAND_DISPLAY;
const reason = !bin ? 'the Electron binary is not installed' : !display ? 'there is no display' : undefined;
if (reason) console.warn(`skipping Electron window tests: ${reason} (the same UI is tested in Chromium through serve)`);

describe.skipIf(reason !== undefined)('Electron window', () => {
  it('opens a sandboxed window whose renderer reaches the Core only through the bridge', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sb-electron-'));
    writeFileSync(join(home, 'config.yaml'), 'terminal:\n  targets:\n    local: { backend: local, cwd: /tmp }\n');
    const app = await electron.launch({
      executablePath: bin!,
      args: [join(root, 'out/main/index.cjs')],
      env: { ...process.env, SWITCHBOARD_HOME: home },
    });
    try {
      const page = await app.firstWindow();
      await page.getByRole('combobox', { name: 'Target' }).first().waitFor();
      expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
      expect(await page.evaluate(() => typeof (globalThis as { switchboard?: unknown }).switchboard)).toBe('object');
    } finally {
      await app.close();
    }
  });
});
