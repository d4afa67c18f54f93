// Holds the current config: loads config.yaml, follows edits (file events plus a stat check per use), keeps the last
// good one.
import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError, toErrorPayload } from '../../../shared/errors.js';
import { MAX_CONFIG_BYTES, defaultConfig, parseConfig, type Config, type SpecSchemas } from './loadConfig.js';

export class ConfigStore {
  readonly path: string;
  private current: Config;
  private signature = '';
  private lastError: string | undefined;
  private watcher: FSWatcher | undefined;
  private readonly listeners = new Set<() => void>();
  /** The file was looked at in this turn of the event loop (see `config`). */
  private checkedThisTurn = false;

  /** Throws bad_config when the file exists and is wrong: a start with a broken config must fail loudly. */
  constructor(
    readonly home: string,
    private readonly schemas: () => SpecSchemas,
  ) {
    this.path = join(home, 'config.yaml');
    this.current = defaultConfig();
    this.signature = this.statSignature();
    if (this.signature !== 'missing') this.current = this.readFile();
  }

  /**
   * The config in force, after a stat of the file. One call reads it several times in a row (its target, its
   * environment rules, the approvals mode): the reads of one turn of the event loop share one stat. That sees every
   * edit a stat per read would: whatever made this turn run (a client's message, a timer) came after any edit that
   * finished before it.
   */
  get config(): Config {
    if (!this.checkedThisTurn) this.refresh();
    return this.current;
  }

  /** The error of the last edit that could not be applied (the previous config stays in force). */
  get problem(): string | undefined {
    return this.lastError;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-read when the file changed; returns true when the config in force changed. */
  refresh(): boolean {
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      setImmediate(() => {
        this.checkedThisTurn = false;
      }).unref();
    }
    const sig = this.statSignature();
    if (sig === this.signature) return false;
    this.signature = sig;
    try {
      this.current = sig === 'missing' ? defaultConfig() : this.readFile();
      this.lastError = undefined;
    } catch (err) {
      this.lastError = toErrorPayload(err).message;
      for (const l of this.listeners) l();
      return false;
    }
    for (const l of this.listeners) l();
    return true;
  }

  /** Check the file again against the current backends (a plugin backend came or went), changed or not. */
  revalidate(): void {
    this.signature = '';
    this.refresh();
  }

  watch(): void {
    if (this.watcher) return;
    try {
      // Watch the directory: editors replace the file by rename, which a file watch would lose.
      this.watcher = watch(this.home, { persistent: false }, (_event, file) => {
        if (file === null || file === 'config.yaml') setTimeout(() => this.refresh(), 50);
      });
      this.watcher.on('error', () => undefined);
    } catch {
      /* no watcher: the stat check on each use still sees edits */
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private readFile(): Config {
    let text: string;
    try {
      const size = statSync(this.path).size;
      if (size > MAX_CONFIG_BYTES) {
        throw new SwitchboardError(
          'bad_config',
          `config.yaml: the file is ${(size / 1024 / 1024).toFixed(1)} MiB, over the 1 MiB limit`,
          'a config holds a few targets; programs that create many register them as runtime targets',
        );
      }
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if (err instanceof SwitchboardError) throw err;
      throw new SwitchboardError('bad_config', `cannot read ${this.path}: ${(err as Error).message}`);
    }
    return parseConfig(text, this.schemas());
  }

  private statSignature(): string {
    try {
      // Asked on every call: a missing file is an answer, not an exception (building one costs more than the stat).
      const st = statSync(this.path, { throwIfNoEntry: false });
      return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'missing';
    } catch {
      // unreadable is as good as missing: the next look tries again
      return 'missing';
    }
  }
}
