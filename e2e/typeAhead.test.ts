// Keys typed at once into a new tab, or right after switching tabs, reach the shell whole, as in any terminal.
import { describe, expect, it } from 'vitest';
import { marker, openUi, pane, useServeAndBrowser, waitForPrompt, waitForText } from './harness.js';

const app = useServeAndBrowser();

describe('type-ahead', () => {
  it(
    'a new tab takes what is typed before its shell is up; ' + 'a switched-to tab takes what is typed at once',
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url);
      await waitForPrompt(pane(page, 1));
      for (let i = 0; i < 3; i++) {
        const m = marker(`new${i}`);
        await page.keyboard.press('Control+Shift+T');
        // No wait: the keys go out while the tab mounts and its shell starts.
        await page.keyboard.type(`echo ${m}`);
        await page.keyboard.press('Enter');
        await waitForText(pane(page, 1), new RegExp(`^${m}$`, 'm'));
      }
      for (let i = 0; i < 3; i++) {
        const m = marker(`switch${i}`);
        await page.keyboard.press('Control+Tab');
        await page.keyboard.type(`echo ${m}`);
        await page.keyboard.press('Enter');
        await waitForText(pane(page, 1), new RegExp(`^${m}$`, 'm'));
      }
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
