import { describe, expect, it } from 'vitest';
import { actionForKey, chordOf, commands } from './keyboard.js';

const key = (code: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean; meta?: boolean } = {}, k = '') => ({
  code, key: k, ctrlKey: !!mods.ctrl, altKey: !!mods.alt, shiftKey: !!mods.shift, metaKey: !!mods.meta,
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
