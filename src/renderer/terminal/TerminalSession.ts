// One pane's terminal: an xterm bound to a pty on a target. Output goes from the router straight to term.write,
// acknowledged in batches.
// Over 380 lines: one pane's terminal is one state machine (attach, output, input, reconnect, exit, dispose).
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import type { PaneInfo, PaneReconnect } from '../../shared/api.js';
import { core, useConnection } from '../client/core.js';
import { toastError } from '../store/toasts.js';
import type { PaneStatus } from '../store/layout.js';
import { actionForKey } from '../keyboard.js';
import { useSettings } from '../store/settings.js';
import { registerPane } from './paneRouter.js';
import { terminalOptions } from './theme.js';
import { TerminalAddons } from './TerminalAddons.js';
import { PaneAcks } from '../../shared/paneFlow.js';
import { exitReasons } from '../../shared/exitReasons.js';

/** pane.write takes at most 1,000,000 chars; big pastes go in slices. */
const WRITE_SLICE = 64 * 1024;

/**
 * The window's own notes in a terminal: bright black, which every theme's palette keeps readable (4.5:1 and up), not
 * SGR 2 (faint), which halves the contrast of whatever colour it dims.
 */
const MUTED = '\x1b[90m';
const YELLOW = '\x1b[33m';
const RED = '\x1b[31m';
const RESET = '\x1b[0m';

export interface SessionEvents {
  status(status: PaneStatus, info?: PaneInfo): void;
  /** The Core's countdown or attempt for a pane whose connection dropped. */
  reconnect(state: PaneReconnect | undefined): void;
  cwd(cwd: string): void;
  title(title: string): void;
  focus(): void;
  /** The person typed or pasted this into the pane (not the terminal's own replies to a program): for broadcast. */
  typed?(data: string): void;
}

/** The events by which a person's keys and pastes reach xterm; its replies to programs come from none of them. */
const PERSON_INPUT_EVENTS = ['keydown', 'keypress', 'beforeinput', 'input', 'compositionend', 'paste'] as const;

export class TerminalSession {
  readonly term: Terminal;
  readonly addons: TerminalAddons;
  private readonly fit = new FitAddon();
  private paneId: string | undefined;
  /** What was typed while the shell was starting: sent once it is open, as a terminal keeps type-ahead. */
  private typeAhead = '';
  private unregister: (() => void) | undefined;
  private status: PaneStatus = 'connecting';
  /** Bumped on every open/close so a late pane.open reply for an abandoned pty is closed, not adopted. */
  private epoch = 0;
  /** Acknowledges written output of the pane now open, so the Core keeps reading its pty. */
  private readonly acks = new PaneAcks((chars) => {
    if (this.paneId) core.ackPane(this.paneId, chars);
  });
  private observer: ResizeObserver | undefined;
  private fitFrame = 0;
  private disposed = false;
  /**
   * Shell integration: the shell reports each prompt (OSC 7 from PROMPT_COMMAND), so a running program can be told
   * apart from the idle shell.
   */
  private promptSeen = false;
  /** The command line that started the program now in the foreground; undefined at the prompt. */
  private running: string | undefined;
  /** Enter was typed at the prompt: the next line feed starts a program. */
  private enterTyped = false;
  /** Writing a resumed pane's recent output: a line feed after the last prompt there means a program was running. */
  private replaying = false;
  /** Where the shell last said it was (OSC 7): a shell started after a Core restart starts there. */
  private lastCwd: string | undefined;
  /** Opening again after the page reconnected: the screen keeps what it showed; a new shell says why it is new. */
  private reconnecting = false;
  private readonly offReopen: () => void;
  /**
   * A person's key or paste is being handled: xterm's data now is theirs. The terminal also answers programs through
   * the same data event (cursor position, device attributes, mouse and focus reports), and those must reach only its
   * own shell, never the others a broadcast types into.
   */
  private personInput = false;
  /** The left button went down in this terminal and is not up yet. */
  private mouseSelecting = false;
  private readonly onMouseUp = (e: MouseEvent): void => {
    if (!this.mouseSelecting || e.button !== 0) return;
    this.mouseSelecting = false;
    if (useSettings.getState().copyOnSelect && this.term.hasSelection()) void this.copy();
  };

  /**
   * `startCwd`: where the first shell should `cd` to once it is up (a split on its source pane's target).
   * `resumeId`: the Core pane this pane had before a reload; resumed with its recent output when the Core still keeps
   * it.
   */
  constructor(
    private target: string,
    private readonly events: SessionEvents,
    private startCwd?: string,
    private resumeId?: string,
  ) {
    this.term = new Terminal(terminalOptions);
    this.term.loadAddon(this.fit);
    this.addons = new TerminalAddons(this.term, () => this.scheduleFit());
    this.term.attachCustomKeyEventHandler((e) => this.onKey(e));
    this.term.onTitleChange((t) => this.events.title(t));
    this.term.parser.registerOscHandler(7, () => {
      this.promptSeen = true;
      this.running = undefined;
      this.enterTyped = false;
      return false;
    });
    this.term.onLineFeed(() => {
      if (!this.promptSeen || this.running !== undefined || !(this.enterTyped || this.replaying)) return;
      const buf = this.term.buffer.active;
      const line = buf
        .getLine(buf.baseY + buf.cursorY - 1)
        ?.translateToString(true)
        .trim();
      this.running = line || 'a program';
    });
    this.term.onData((d) => this.typed(d, this.personInput));
    this.term.onBinary((d) => this.typed(d, this.personInput));
    this.term.onResize(({ cols, rows }) => {
      // The pane may be gone; its exit event says so.
      if (this.paneId) core.call('pane.resize', { pane_id: this.paneId, cols, rows }).catch(() => undefined);
    });
    this.offReopen = core.onReopen(() => this.reconnected());
  }

  /**
   * The page reconnected: the same pane when the Core still keeps it (its recent output replaces the screen), else a
   * new shell (the Core restarted) in the directory the old one was in, below what the screen already shows.
   */
  private reconnected(): void {
    if (this.disposed || this.status === 'exited') return;
    const old = this.paneId;
    this.detach();
    this.resumeId = old;
    this.startCwd = this.lastCwd;
    this.reconnecting = true;
    void this.open();
  }

  mount(el: HTMLElement): void {
    this.term.open(el);
    this.term.textarea?.addEventListener('focus', () => this.events.focus());
    this.watchPersonInput(el);
    // Copy on select copies what the mouse selected, when the button is let go (also outside the pane): a find's
    // match or a right-click's word is selected too, but is no copy the person asked for.
    el.addEventListener('mousedown', (e) => {
      if (e.button === 0) this.mouseSelecting = true;
    });
    window.addEventListener('mouseup', this.onMouseUp);
    this.observer = new ResizeObserver(() => this.scheduleFit());
    this.observer.observe(el);
    this.addons.mounted();
    this.fitNow();
    void this.open();
  }

  focus(): void {
    this.term.focus();
  }

  /** Keys typed for this terminal before it had the keyboard: sent as if typed into it. */
  typeIn(data: string): void {
    this.typed(data, true);
  }

  /**
   * What a person typed into another pane of a broadcast: sent to this shell as if typed here, when it is open or
   * starting (kept as type-ahead then). A pane whose shell failed or exited is not reopened by someone else's keys.
   */
  receive(data: string): void {
    if (this.status === 'open' || this.status === 'connecting') this.input(data);
  }

  /**
   * Marks xterm's data as the person's while one of their input events is handled: set in the capture phase, before
   * xterm hears the event, and cleared two timer turns later, after the text xterm reads on a timer of its own (an
   * IME's composition, a key it cannot tell yet) has come.
   */
  private watchPersonInput(el: HTMLElement): void {
    let last = 0;
    const mark = (): void => {
      const mine = ++last;
      this.personInput = true;
      setTimeout(() =>
        setTimeout(() => {
          if (last === mine) this.personInput = false;
        }),
      );
    };
    for (const type of PERSON_INPUT_EVENTS) el.addEventListener(type, mark, true);
  }

  /**
   * Data from the terminal: the person's goes to the others of a broadcast too, while this pane has a shell to type
   * into (a key that reopens a failed or exited one is for this pane alone); all of it goes to this pane.
   */
  private typed(data: string, byPerson: boolean): void {
    if (byPerson && (this.status === 'open' || this.status === 'connecting')) this.events.typed?.(data);
    this.input(data);
  }

  /**
   * The line that started the program running in the foreground (anything but the idle shell), if the shell reports its
   * prompts.
   */
  foreground(): string | undefined {
    return this.status === 'open' ? this.running : undefined;
  }

  /**
   * A pane whose connection dropped: `now` skips the Core's wait, `cancel` stops its attempts (the pane ends, and a key
   * starts a new shell as before).
   */
  reconnect(action: 'now' | 'cancel'): void {
    const paneId = this.paneId;
    if (this.status !== 'reconnecting' || !paneId) return;
    core.call('pane.reconnect', { pane_id: paneId, action }).catch(toastError);
  }

  /** Copies the selection; false when nothing is selected. */
  async copy(): Promise<boolean> {
    const text = this.term.getSelection();
    if (!text) return false;
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (err) {
      toastError({ message: 'Could not copy to the clipboard', hint: (err as Error).message });
      return false;
    }
  }

  /** Pastes the clipboard as typed input (bracketed when the program asked for it). */
  async paste(): Promise<void> {
    try {
      const text = await navigator.clipboard.readText();
      if (!text) return;
      this.personInput = true;
      try {
        this.term.paste(text);
      } finally {
        this.personInput = false;
      }
    } catch (err) {
      toastError({
        message: 'Could not read the clipboard',
        hint:
          `Allow this page to read the clipboard, or paste with the browser's own menu. ` +
          `(${(err as Error).message})`,
      });
    }
  }

  /** Clears the screen here and in what the Core replays to a window that comes back (a reload). */
  clear(): void {
    this.term.clear();
    // The pane may be gone; then there is nothing to replay either.
    if (this.paneId) core.call('pane.clear', { pane_id: this.paneId }).catch(() => undefined);
  }

  /** Closes the pty and opens a new one on another target; the screen starts clean. */
  setTarget(target: string): void {
    if (target === this.target || this.disposed) return;
    this.closePty();
    this.target = target;
    // The split's start directory is a path on the source pane's target, not on this one.
    this.startCwd = undefined;
    this.term.reset();
    void this.open();
  }

  /** A fresh shell on the same target (e.g. on its newer generation). */
  reopen(): void {
    if (this.disposed) return;
    this.closePty();
    this.term.reset();
    void this.open();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.offReopen();
    window.removeEventListener('mouseup', this.onMouseUp);
    this.closePty();
    this.observer?.disconnect();
    cancelAnimationFrame(this.fitFrame);
    this.addons.dispose();
    this.term.dispose();
  }

  /** xterm's key hook: app shortcuts never reach the shell; Ctrl+Shift+C/V (and Ctrl+V if so set) copy and paste. */
  private onKey(e: KeyboardEvent): boolean {
    if (actionForKey(e, true)) return false;
    const plainCtrlV = e.ctrlKey && !e.shiftKey && !e.altKey && !e.metaKey && e.code === 'KeyV';
    if (plainCtrlV && useSettings.getState().ctrlVPastes) {
      if (e.type === 'keydown') {
        e.preventDefault();
        void this.paste();
      }
      return false;
    }
    return true;
  }

  private setStatus(status: PaneStatus, info?: PaneInfo): void {
    this.status = status;
    this.events.status(status, info);
  }

  private async open(): Promise<void> {
    const epoch = ++this.epoch;
    this.typeAhead = '';
    this.promptSeen = false;
    this.running = undefined;
    this.enterTyped = false;
    this.setStatus('connecting');
    this.fitNow();
    const cols = Math.max(2, this.term.cols);
    const rows = Math.max(1, this.term.rows);
    let info: PaneInfo;
    let resumedPane = false;
    try {
      const resumed = epoch === this.epoch ? await this.resumed() : undefined;
      resumedPane = resumed !== undefined;
      // A split, a duplicate, or a shell started again (after a Core restart, or a retry) starts where the pane was.
      const start = this.startCwd;
      info =
        resumed ??
        (await core.call('pane.open', {
          execution_target: this.target,
          cols,
          rows,
          keep: true,
          binary: true,
          ...(start?.startsWith('/') ? { cwd: start } : {}),
        }));
    } catch (err) {
      if (epoch !== this.epoch || this.disposed) return;
      this.setStatus('failed');
      const e = err as { message?: string; hint?: string };
      this.notice(
        `${RED}${e.message ?? String(err)}${RESET}\r\n${e.hint ? `${MUTED}${e.hint}${RESET}\r\n` : ''}${MUTED}press ` +
          `a key to try again${RESET}\r\n`,
      );
      toastError(err);
      return;
    }
    if (epoch !== this.epoch || this.disposed) {
      // Closing one no one shows: gone already is fine.
      core.call('pane.close', { pane_id: info.pane_id }).catch(() => undefined);
      return;
    }
    this.paneId = info.pane_id;
    this.acks.reset();
    const paneId = info.pane_id;
    this.unregister = registerPane(paneId, {
      data: (data, chars) => this.output(paneId, data, chars),
      cwd: (cwd) => {
        this.lastCwd = cwd;
        this.events.cwd(cwd);
      },
      exit: (code, reason, detail) => this.exited(paneId, code, reason, detail),
      reconnect: (state) => this.reconnectState(paneId, state),
    });
    if (info.status === 'reconnecting') {
      this.setStatus('reconnecting', info);
      this.events.reconnect(info.reconnect);
    } else this.setStatus('open', info);
    if (info.cwd) this.lastCwd ??= info.cwd;
    const newAfterReconnect = this.reconnecting && !resumedPane;
    if (newAfterReconnect) {
      const where = this.startCwd ?? info.cwd;
      this.notice(
        `${YELLOW}[reconnected to a new Core: a new shell${where ? ` in ${where}` : ''}; ` +
          `what is above is the old one's]${RESET}\r\n`,
      );
    }
    this.reconnecting = false;
    // Only the first shell of a split starts in its source's directory; a reopen starts where the target says.
    this.startCwd = undefined;
    const early = this.typeAhead;
    this.typeAhead = '';
    if (early) this.input(early);
    // The pane may have been resized while the pty was starting.
    this.fitNow();
    if (this.term.cols !== cols || this.term.rows !== rows) {
      // The pane may be gone; its exit event says so.
      core.call('pane.resize', { pane_id: paneId, cols: this.term.cols, rows: this.term.rows }).catch(() => undefined);
    }
  }

  /**
   * The pane this window had before a reload, with its recent output on screen; undefined when the Core no longer has
   * it.
   */
  private async resumed(): Promise<PaneInfo | undefined> {
    const id = this.resumeId;
    this.resumeId = undefined;
    if (!id) return undefined;
    try {
      const { scrollback, ...info } = await core.call('pane.resume', { pane_id: id, binary: true });
      const live = info.status === 'open' || info.status === 'reconnecting';
      if (info.execution_target !== this.target || !live) {
        // Closing one no one shows: gone already is fine.
        core.call('pane.close', { pane_id: id }).catch(() => undefined);
        return undefined;
      }
      // Shown before the live output that follows the reply (the router holds it until the pane is registered). After
      // a reconnect the screen already shows most of it: it is drawn anew from the Core's copy.
      if (this.reconnecting) this.term.reset();
      if (scrollback) {
        this.replaying = true;
        this.term.write(scrollback, () => {
          this.replaying = false;
        });
      }
      // The shell is already where it was: no `cd` for a split's start directory.
      this.startCwd = undefined;
      return info;
    } catch {
      // not there any more: a new pane is opened
      return undefined;
    }
  }

  /** xterm takes bytes as they came (it keeps a character split between writes); `chars` is what the Core counts. */
  private output(paneId: string, data: string | Uint8Array, chars: number): void {
    this.term.write(data, () => {
      if (this.paneId === paneId) this.acks.written(chars);
    });
  }

  /** The Core is reconnecting the pane (its countdown, an attempt) or has: the new shell's output follows. */
  private reconnectState(paneId: string, state: PaneReconnect): void {
    if (this.paneId !== paneId) return;
    if (state.state === 'reconnected') {
      this.promptSeen = false;
      this.running = undefined;
      this.events.reconnect(undefined);
      this.setStatus('open');
      return;
    }
    if (this.status !== 'reconnecting') this.setStatus('reconnecting');
    this.events.reconnect(state);
  }

  private exited(paneId: string, code: number | null, reason?: string, detail?: string): void {
    if (this.paneId !== paneId) return;
    this.detach();
    this.events.reconnect(undefined);
    // The shell is gone; so is the Core's record of it (a new shell is a new pane).
    core.call('pane.close', { pane_id: paneId }).catch(() => undefined);
    if (reason === exitReasons.connectionLost) {
      this.setStatus('lost');
      // Not reconnected by itself: the Core says why (a changed host key, a refused login), or the person cancelled.
      if (detail) this.notice(`${RED}${detail}${RESET}\r\n${MUTED}press a key to try again${RESET}\r\n`);
      else this.notice(`${YELLOW}connection lost — press a key to reconnect${RESET}\r\n`);
    } else {
      this.setStatus('exited');
      const detail = code !== null && code !== 0 ? ` exit code ${code} ·` : '';
      this.notice(`${MUTED}[process exited]${detail} press Enter for a new shell${RESET}\r\n`);
    }
  }

  /**
   * A notice of the app's own, on a line of its own (no blank line above it on an empty screen) after output already
   * queued.
   */
  private notice(text: string): void {
    this.term.write('', () => this.term.write((this.term.buffer.active.cursorX > 0 ? '\r\n' : '') + text));
  }

  private input(data: string): void {
    // Keys typed while the page has no Core go nowhere, as in a terminal whose connection dropped.
    if (useConnection.getState().state === 'closed') return;
    if (this.status === 'lost' || this.status === 'failed' || (this.status === 'exited' && data === '\r')) {
      // "Press a key to try again": the key that tries is typed too, as every key after it is (type-ahead), unless it
      // is only the Enter that answered the prompt. The new shell starts where the old one was.
      const retrying = this.status !== 'exited';
      if (retrying) this.term.write(`${MUTED}reconnecting…${RESET}\r\n`);
      this.startCwd = this.lastCwd;
      void this.open();
      if (retrying && data !== '\r') this.typeAhead = data;
      return;
    }
    if (this.status === 'connecting') {
      this.typeAhead += data;
      return;
    }
    // The connection dropped and the Core is waiting to try again: a key tries now (the keys themselves go nowhere,
    // as in a terminal whose line is down).
    if (this.status === 'reconnecting') return this.reconnect('now');
    const paneId = this.paneId;
    if (this.status !== 'open' || !paneId) return;
    if (this.promptSeen && this.running === undefined && data.includes('\r')) this.enterTyped = true;
    for (let i = 0; i < data.length; i += WRITE_SLICE) {
      core.call('pane.write', { pane_id: paneId, data: data.slice(i, i + WRITE_SLICE) }).catch(toastError);
    }
  }

  private detach(): void {
    this.unregister?.();
    this.unregister = undefined;
    this.paneId = undefined;
    this.acks.reset();
  }

  private closePty(): void {
    this.epoch++;
    const paneId = this.paneId;
    this.detach();
    if (paneId) core.call('pane.close', { pane_id: paneId }).catch(() => undefined); // closing: gone already is fine
  }

  private scheduleFit(): void {
    cancelAnimationFrame(this.fitFrame);
    this.fitFrame = requestAnimationFrame(() => this.fitNow());
  }

  /** Fits the grid to the element; skipped while the element is hidden (an inactive tab). */
  private fitNow(): void {
    if (this.disposed) return;
    const el = this.term.element;
    if (!el || el.clientWidth === 0 || el.clientHeight === 0) return;
    const dims = this.fit.proposeDimensions();
    if (!dims || !Number.isFinite(dims.cols) || !Number.isFinite(dims.rows)) return;
    const cols = Math.max(2, dims.cols);
    const rows = Math.max(1, dims.rows);
    if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
  }
}
