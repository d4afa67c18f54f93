// Keeps the window's tabs and panes across restarts: `conf` under plain Node, `electron-store` (same API) in Electron.
import { WorkspaceLayout } from '../../../shared/api.js';
import type { CoreExtension } from '../core.js';

/** The part of conf / electron-store this needs. */
export interface KeyValueStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export type KeyValueStoreFactory = (home: string) => Promise<KeyValueStore>;

const KEY = 'workspace';

/** conf, loaded on first use (it is an ES module; the Core bundle is CommonJS). */
export const confStore: KeyValueStoreFactory = async (home) => {
  const { default: Conf } = await import('conf');
  return new Conf<Record<string, unknown>>({ cwd: home, configName: 'ui-state', projectName: 'switchboard', clearInvalidConfig: true });
};

/** The workspace.get / workspace.save methods over a store; a stored layout that no longer parses is ignored. */
export function workspaceStore(factory: KeyValueStoreFactory = confStore): CoreExtension {
  return (core) => {
    let store: Promise<KeyValueStore> | undefined;
    const open = (): Promise<KeyValueStore> => (store ??= factory(core.home));
    core.handle('workspace.get', async () => {
      const parsed = WorkspaceLayout.safeParse((await open()).get(KEY));
      return parsed.success ? parsed.data : null;
    });
    core.handle('workspace.save', async (layout) => {
      (await open()).set(KEY, layout);
      return {};
    });
  };
}
