// A terminal's addons and settings: find, clickable links, unicode 11 widths, WebGL drawing with the DOM as fallback,
// font/theme/scrollback.
import type { Terminal } from '@xterm/xterm';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebglAddon } from '@xterm/addon-webgl';
import { effectiveFontSize, isSoftwareRenderer, useSettings, type Settings } from '../store/settings.js';
import { resolvedScheme, useColorScheme } from '../store/colorScheme.js';
import { terminalThemes } from './theme.js';

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

function searchColors(scheme: 'dark' | 'light'): ISearchOptions['decorations'] {
  return scheme === 'dark'
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

  find(query: string, backwards = false): boolean {
    if (!query) {
      this.clearSearch();
      return false;
    }
    const opts: ISearchOptions = { decorations: searchColors(resolvedScheme(useSettings.getState().theme)) };
    // Typing refines the current match in place; Enter / the buttons move on.
    if (query !== this.lastQuery && !backwards) opts.incremental = true;
    this.lastQuery = query;
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
    const theme = terminalThemes[resolvedScheme(s.theme)];
    const sized = o.fontSize !== fontSize || o.fontFamily !== s.fontFamily;
    if (o.fontSize !== fontSize) o.fontSize = fontSize;
    if (o.fontFamily !== s.fontFamily) o.fontFamily = s.fontFamily;
    if (o.scrollback !== s.scrollback) o.scrollback = s.scrollback;
    if (o.theme !== theme) o.theme = theme;
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
