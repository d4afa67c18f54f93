import { afterEach, describe, expect, it } from 'vitest';
import {
  actionForKey,
  assignChord,
  browserReserved,
  chordOf,
  commands,
  isOverridden,
  keysOf,
  parseKeyOverrides,
  setKeyHost,
  setKeyOverrides,
  shortcutOf,
  type CommandId,
} from './keyboard.js';

const key = (code: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean; meta?: boolean } = {}, k = '') => ({
  code,
  key: k,
  ctrlKey: !!mods.ctrl,
  altKey: !!mods.alt,
  shiftKey: !!mods.shift,
  metaKey: !!mods.meta,
});

describe('keyboard', () => {
  it.each([
    [key('KeyD', { ctrl: true, shift: true }), 'Ctrl+Shift+D', 'splitRight'],
    [key('KeyO', { ctrl: true, shift: true }), 'Ctrl+Shift+O', 'splitDown'],
    [key('ArrowLeft', { alt: true }), 'Alt+Left', 'focusLeft'],
    [key('ArrowDown', { ctrl: true, shift: true }), 'Ctrl+Shift+Down', 'focusDown'],
    [key('Equal', { ctrl: true }), 'Ctrl+=', 'fontBigger'],
    [key('NumpadAdd', { ctrl: true }), 'Ctrl++', 'fontBigger'],
    [key('Minus', { ctrl: true }), 'Ctrl+-', 'fontSmaller'],
    [key('Digit0', { ctrl: true }), 'Ctrl+0', 'fontReset'],
    [key('Digit3', { ctrl: true }), 'Ctrl+3', 'tab3'],
    [key('Tab', { ctrl: true, shift: true }), 'Ctrl+Shift+Tab', 'prevTab'],
    [key('F6', { shift: true }), 'Shift+F6', 'prevRegion'],
    [key('KeyC', { ctrl: true }), 'Ctrl+C', undefined],
    [key('KeyV', { ctrl: true }), 'Ctrl+V', undefined],
    [key('', { ctrl: true, shift: true }, 'p'), 'Ctrl+Shift+P', 'palette'],
  ])('%j is %s → %s', (e, chord, action) => {
    expect(chordOf(e)).toBe(chord);
    expect(actionForKey(e, true)).toBe(action);
  });

  it('leaves plain Ctrl+B to the shell while a terminal has the keyboard', () => {
    const e = key('KeyB', { ctrl: true });
    expect(actionForKey(e, true)).toBeUndefined();
    expect(actionForKey(e, false)).toBe('toggleSidebar');
  });

  it('binds no key to two commands', () => {
    const all = Object.values(commands).flatMap((c: { keys: string[] }) => c.keys);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('keys for the host and the person', () => {
  afterEach(() => {
    setKeyHost('electron');
    setKeyOverrides({});
  });

  it('in a browser, every command whose keys the browser keeps has one it leaves to the page, shown first', () => {
    setKeyHost('browser');
    for (const id of Object.keys(commands) as CommandId[]) {
      const keys = keysOf(id);
      if (keys.length === 0) continue;
      expect(browserReserved.has(keys[0]!), `${id}: ${keys.join(', ')}`).toBe(false);
    }
    expect(shortcutOf('newTab')).toBe('Alt+Shift+T');
    expect(actionForKey(key('KeyT', { alt: true, shift: true }), true)).toBe('newTab');
    expect(actionForKey(key('BracketRight', { alt: true, shift: true }), true)).toBe('nextTab');
    expect(actionForKey(key('Digit2', { alt: true, shift: true }), true)).toBe('tab2');
    // The browser's own keys stay bound where it lets them through (an app window, a headless one).
    expect(actionForKey(key('KeyT', { ctrl: true, shift: true }), true)).toBe('newTab');
    setKeyHost('electron');
    expect(shortcutOf('newTab')).toBe('Ctrl+Shift+T');
  });

  it("a person's keys replace the defaults; a key given to one command is taken from the one that had it", () => {
    const { next, takenFrom } = assignChord({}, 'newTab', 'Ctrl+Shift+D');
    expect(takenFrom).toBe('splitRight');
    setKeyOverrides(next);
    expect(actionForKey(key('KeyD', { ctrl: true, shift: true }), true)).toBe('newTab');
    expect(actionForKey(key('KeyT', { ctrl: true, shift: true }), true)).toBeUndefined();
    expect(keysOf('splitRight')).toEqual([]);
    expect(isOverridden('newTab')).toBe(true);
  });

  it('saved keys are checked: unknown commands and malformed chords are dropped, junk is nothing', () => {
    expect(parseKeyOverrides(JSON.stringify({ newTab: ['Alt+Shift+N', 'Hyper+X', 3], nope: ['Ctrl+K'] }))).toEqual({
      newTab: ['Alt+Shift+N'],
    });
    expect(parseKeyOverrides('{not json')).toEqual({});
    expect(parseKeyOverrides('')).toEqual({});
  });
});
