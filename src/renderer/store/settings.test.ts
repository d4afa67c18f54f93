import { describe, expect, it } from 'vitest';
import { effectiveFontSize, isSoftwareRenderer, parseSettings, terminalFontStack } from './settings.js';

describe('settings', () => {
  it('keeps good fields and puts defaults in place of bad ones, one by one', () => {
    const s = parseSettings({
      fontSize: 99,
      scrollback: 20000,
      theme: 'purple',
      copyOnSelect: true,
      gpu: 'off',
      extra: 1,
    });
    expect(s).toMatchObject({
      fontSize: 13,
      scrollback: 20000,
      theme: 'system',
      copyOnSelect: true,
      gpu: 'off',
      zoom: 0,
    });
    expect(parseSettings(null).fontSize).toBe(13);
  });

  it('keeps a known colour scheme and cursor, and falls back alone on an unknown one', () => {
    expect(parseSettings({ terminalScheme: 'nord', cursorStyle: 'block', cursorBlink: false })).toMatchObject({
      terminalScheme: 'nord',
      cursorStyle: 'block',
      cursorBlink: false,
    });
    expect(parseSettings({ terminalScheme: 'hotdog', cursorStyle: 'beam', cursorBlink: 'yes' })).toMatchObject({
      terminalScheme: 'window',
      cursorStyle: 'bar',
      cursorBlink: true,
    });
    expect(parseSettings({ terminalScheme: '__proto__' }).terminalScheme).toBe('window');
  });

  it.each([
    [undefined, 4.5],
    [1, 1],
    [7, 7],
    [3, 4.5],
    ['1', 4.5],
  ])('minimum contrast %j reads as %j (4.5 unless one of the offered ratios)', (raw, ratio) => {
    expect(parseSettings({ minimumContrast: raw }).minimumContrast).toBe(ratio);
  });

  it.each([
    ['Fira Code', '"Fira Code", monospace'],
    ["'Fira Code', Menlo", '"Fira Code", "Menlo", monospace'],
    ['3270 Nerd Font', '"3270 Nerd Font", monospace'],
    ['Iosevka, MONOSPACE', '"Iosevka", monospace'],
    ['Hack,', '"Hack", monospace'],
    ['a"b', '"ab", monospace'],
  ])('font family %j draws as %j', (family, stack) => {
    expect(terminalFontStack(family)).toBe(stack);
  });

  it('draws with the default stack when the family is empty', () => {
    expect(terminalFontStack(' , ')).toMatch(/monospace$/);
  });

  it('keeps the high-contrast theme and screen reader mode; screen reader mode is off by default', () => {
    expect(parseSettings({ theme: 'high-contrast', screenReaderMode: true })).toMatchObject({
      theme: 'high-contrast',
      screenReaderMode: true,
    });
    expect(parseSettings({ screenReaderMode: 'yes' }).screenReaderMode).toBe(false);
  });

  it.each([
    [13, 0, 13],
    [13, 4, 17],
    [9, -5, 8],
    [30, 16, 32],
  ])('font %i zoomed by %i is %i px', (fontSize, zoom, px) => {
    expect(effectiveFontSize({ fontSize, zoom })).toBe(px);
  });

  it.each([
    ['ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)', true],
    ['llvmpipe (LLVM 15.0.6, 256 bits)', true],
    ['Microsoft Basic Render Driver', true],
    ['ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0, D3D11)', false],
    ['Apple M2', false],
  ])('%s is software: %s', (renderer, software) => {
    expect(isSoftwareRenderer(renderer)).toBe(software);
  });
});
