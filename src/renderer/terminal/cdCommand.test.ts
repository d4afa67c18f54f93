import { describe, expect, it } from 'vitest';
import { cdCommand } from './cdCommand.js';

describe('cdCommand', () => {
  it.each([
    ['/home/me/src', ` cd -- '/home/me/src' && printf '\\033[H\\033[2J'\r`],
    ["/tmp/it's here", ` cd -- '/tmp/it'\\''s here' && printf '\\033[H\\033[2J'\r`],
    ['/tmp/$(rm -rf ~)`x`', ` cd -- '/tmp/$(rm -rf ~)\`x\`' && printf '\\033[H\\033[2J'\r`],
    ['-dash', ` cd -- '-dash' && printf '\\033[H\\033[2J'\r`],
    ['/tmp/new\nline', undefined],
    ['/tmp/esc\x1b[2J', undefined],
    ['', undefined],
  ])('%j', (path, line) => {
    expect(cdCommand(path)).toBe(line);
  });

  it('keeps the screen when asked, erasing only its own echoed line', () => {
    expect(cdCommand('/srv/app', true)).toBe(` cd -- '/srv/app' && printf '\\033[1A\\033[2K'\r`);
  });
});
