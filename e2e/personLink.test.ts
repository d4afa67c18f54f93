// The window is a person's only when opened from the person link: the same page without it says what it is and how to
// open the real one, and shows no terminal or control that would only be refused.
import { describe, expect, it } from 'vitest';
import { openUi, useServeAndBrowser } from './harness.js';

const app = useServeAndBrowser();

describe('the person link', () => {
  it(
    'opened from it, the page is the window; without it, ' + 'the page says it is not yours (1400×900 and 900×600)',
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
      await expect.poll(() => page.getByRole('navigation').or(page.locator('.xterm')).first().isVisible()).toBe(true);
      await page.close();
      expect(errors).toEqual([]);
      for (const viewport of [
        { width: 1400, height: 900 },
        { width: 900, height: 600 },
      ]) {
        const plain = await app.browser.newPage({ viewport });
        // The same address and token, without the #fragment that carries the person secret.
        await plain.goto(app.served.url.replace(/#.*$/, ''));
        await expect
          .poll(() => plain.getByRole('heading', { name: 'This page is not your window' }).isVisible())
          .toBe(true);
        expect(await plain.getByRole('alert').textContent()).toMatch(/switchboard open/);
        expect(await plain.locator('.xterm').count()).toBe(0);
        await plain.close();
      }
    },
  );
});
