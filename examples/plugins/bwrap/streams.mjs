// PluginStream over a child process or a pty: output is held until the Core's first listener attaches.
// @ts-check

/** @typedef {import('../../../src/shared/plugins.js').PluginStream} PluginStream */

/**
 * A PluginStream whose output and exit are buffered until someone listens (the Core attaches right after the
 * promise resolves, but a fast command may finish first).
 * @param {{ write(data: string): void; resize?(cols: number, rows: number): void; kill(): void | Promise<void> }} ops
 * @returns {{ stream: PluginStream; data(chunk: string): void; exit(code: number | null, reason?: string): void }}
 */
export function bufferedStream(ops) {
  /** @type {((data: string) => void)[]} */
  const dataListeners = [];
  /** @type {((code: number | null, reason?: string) => void)[]} */
  const exitListeners = [];
  /** @type {string[]} */
  let pending = [];
  /** @type {{ code: number | null; reason?: string } | undefined} */
  let exited;
  /** @type {PluginStream} */
  const stream = {
    on_data(listener) {
      dataListeners.push(listener);
      for (const chunk of pending) listener(chunk);
      pending = [];
    },
    on_exit(listener) {
      exitListeners.push(listener);
      if (exited) listener(exited.code, exited.reason);
    },
    write: (data) => ops.write(data),
    kill: () => ops.kill(),
    ...(ops.resize ? { resize: ops.resize } : {}),
  };
  return {
    stream,
    data(chunk) {
      if (dataListeners.length === 0) pending.push(chunk);
      for (const l of dataListeners) l(chunk);
    },
    exit(code, reason) {
      if (exited) return;
      exited = reason === undefined ? { code } : { code, reason };
      for (const l of exitListeners) l(code, reason);
    },
  };
}
