// Keeps the window's tabs and panes across restarts: `conf` under plain Node, `electron-store` (same API) in Electron.

/** The part of conf / electron-store this needs. */
export interface KeyValueStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export type KeyValueStoreFactory = (home: string) => Promise<KeyValueStore>;

/** conf, loaded on first use (it is an ES module; the Core bundle is CommonJS). */
export const confStore: KeyValueStoreFactory = async (home) => {
  const { default: Conf } = await import('conf');
  return new Conf<Record<string, unknown>>({
    cwd: home,
    configName: 'ui-state',
    projectName: 'switchboard',
    clearInvalidConfig: true,
  });
};
