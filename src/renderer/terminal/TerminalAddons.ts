// A terminal's addons and settings: find, clickable links, unicode 11 widths, WebGL drawing with the DOM as fallback,
// font/colours/cursor/scrollback.
import type { Terminal } from '@xterm/xterm';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebglAddon } from '@xterm/addon-webgl';
import {
  effectiveFontSize,
  isSoftwareRenderer,
  terminalFontStack,
  useSettings,
  type Settings,
} from '../store/settings.js';
import { resolvedScheme, useColorScheme } from '../store/colorScheme.js';
import { terminalColors } from './colorSchemes.js';

/** Find's three switches, as VS Code's find widget has them. */
export interface FindToggles {
  caseSensitive: boolean;
  regex: boolean;
  wholeWord: boolean;
}

export interface SearchResults {
  index: number;
  count: number;
}

let hardwareWebgl: boolean | undefined;

/** Whether this page has WebGL2 on a real GPU; asked once, the probe context given back at once. */
function hasHardwareWebgl(): boolean {
  if (hardwareWebgl !== undefined) return hardwareWebgl;
  hardwareWebgl = false;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (gl) {
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      hardwareWebgl = !isSoftwareRenderer(renderer);
      gl.getExtension('WEBGL_lose_context')?.loseContext();
    }
  } catch {
    // no WebGL here: the DOM renderer
    hardwareWebgl = false;
  }
  return hardwareWebgl;
}

function searchColors(dark: boolean): ISearchOptions['decorations'] {
  return dark
    ? {
        matchBackground: '#4a3d12',
        matchOverviewRuler: '#e5c07b',
        activeMatchBackground: '#8a6d1a',
        activeMatchColorOverviewRuler: '#ffd27a',
      }
    : {
        matchBackground: '#fff1a8',
        matchOverviewRuler: '#bf8700',
        activeMatchBackground: '#ffcf40',
        activeMatchColorOverviewRuler: '#9a6700',
      };
}

export class TerminalAddons {
  private readonly search = new SearchAddon({ highlightLimit: 2000 });
  private webgl: WebglAddon | undefined;
  private readonly offs: Array<() => void> = [];
  private lastQuery = '';
  private lastToggles = '';

  constructor(
    private readonly term: Terminal,
    onResize: () => void,
  ) {
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
    term.loadAddon(this.search);
    // A link opens in a new browser tab that cannot reach back into this page.
    term.loadAddon(
      new WebLinksAddon((event, uri) => {
        event.preventDefault();
        window.open(uri, '_blank', 'noopener,noreferrer');
      }),
    );
    this.apply(useSettings.getState(), onResize);
    this.offs.push(useSettings.subscribe((s) => this.apply(s, onResize)));
    this.offs.push(useColorScheme.subscribe(() => this.apply(useSettings.getState(), onResize)));
  }

  /** Called once the terminal is in the page: WebGL needs its element. */
  mounted(): void {
    this.chooseRenderer(useSettings.getState().gpu);
  }

  /** Which renderer draws this terminal, for the Settings view and tests. */
  get renderer(): 'webgl' | 'dom' {
    return this.webgl ? 'webgl' : 'dom';
  }

  onSearchResults(cb: (r: SearchResults) => void): () => void {
    const d = this.search.onDidChangeResults(({ resultIndex, resultCount }) =>
      cb({ index: resultIndex, count: resultCount }),
    );
    return () => d.dispose();
  }

  /** Moves to the next (or previous) match; throws a SyntaxError for a regex that does not compile. */
  find(query: string, toggles: FindToggles, backwards = false): boolean {
    if (!query) {
      this.clearSearch();
      return false;
    }
    if (toggles.regex) new RegExp(query, toggles.caseSensitive ? 'g' : 'gi');
    const s = useSettings.getState();
    const { dark } = terminalColors(s.terminalScheme, resolvedScheme(s.theme));
    const opts: ISearchOptions = { ...toggles, decorations: searchColors(dark) };
    // Typing (or a switch) refines the current match in place; Enter / the buttons move on.
    const key = JSON.stringify([query, toggles]);
    if (key !== this.lastQuery && !backwards) opts.incremental = true;
    // The addon redraws its matches for a new term only, not for new switches on the same one: forget the old ones.
    const switches = JSON.stringify(toggles);
    if (switches !== this.lastToggles) this.search.clearDecorations();
    this.lastToggles = switches;
    this.lastQuery = key;
    return backwards ? this.search.findPrevious(query, opts) : this.search.findNext(query, opts);
  }

  clearSearch(): void {
    this.lastQuery = '';
    this.search.clearDecorations();
    this.term.clearSelection();
  }

  dispose(): void {
    for (const off of this.offs) off();
    this.webgl?.dispose();
    this.webgl = undefined;
  }

  private apply(s: Settings, onResize: () => void): void {
    const o = this.term.options;
    const fontSize = effectiveFontSize(s);
    const fontFamily = terminalFontStack(s.fontFamily);
    const { theme } = terminalColors(s.terminalScheme, resolvedScheme(s.theme));
    const sized = o.fontSize !== fontSize || o.fontFamily !== fontFamily;
    // No blinking cursor for a person who asked the system for less motion.
    const blink = !useColorScheme.getState().reducedMotion;
    if (o.fontSize !== fontSize) o.fontSize = fontSize;
    if (o.fontFamily !== fontFamily) o.fontFamily = fontFamily;
    if (o.scrollback !== s.scrollback) o.scrollback = s.scrollback;
    if (o.theme !== theme) o.theme = theme;
    if (o.minimumContrastRatio !== s.minimumContrast) o.minimumContrastRatio = s.minimumContrast;
    if (o.cursorStyle !== s.cursorStyle) o.cursorStyle = s.cursorStyle;
    if (o.cursorBlink !== (s.cursorBlink && blink)) o.cursorBlink = s.cursorBlink && blink;
    if (o.screenReaderMode !== s.screenReaderMode) o.screenReaderMode = s.screenReaderMode;
    if (this.term.element) this.chooseRenderer(s.gpu);
    if (sized) onResize();
  }

  private chooseRenderer(gpu: Settings['gpu']): void {
    const want = gpu === 'on' || (gpu === 'auto' && hasHardwareWebgl());
    if (want && !this.webgl) {
      try {
        const addon = new WebglAddon();
        // A lost GPU context (driver reset, too many contexts) falls back to the DOM renderer.
        addon.onContextLoss(() => {
          addon.dispose();
          if (this.webgl === addon) this.webgl = undefined;
        });
        this.term.loadAddon(addon);
        this.webgl = addon;
      } catch {
        // no WebGL here: the DOM renderer
        this.webgl = undefined;
      }
    } else if (!want && this.webgl) {
      this.webgl.dispose();
      this.webgl = undefined;
    }
  }
}
