// workspace.get / workspace.save: the window's layout in a key-value store; a stored layout that no longer parses is ignored.
import { WorkspaceLayout } from '../../../shared/api.js';
import type { Handlers } from '../handlers.js';
import { confStore, type KeyValueStore, type KeyValueStoreFactory } from './workspaceStore.js';

const KEY = 'workspace';

export function workspaceMethods(deps: { home: string; store?: KeyValueStoreFactory }) {
  let store: Promise<KeyValueStore> | undefined;
  const open = (): Promise<KeyValueStore> => (store ??= (deps.store ?? confStore)(deps.home));
  return {
    'workspace.get': async () => {
      const parsed = WorkspaceLayout.safeParse((await open()).get(KEY));
      return parsed.success ? parsed.data : null;
    },
    'workspace.save': async (layout) => {
      (await open()).set(KEY, layout);
      return {};
    },
  } satisfies Partial<Handlers>;
}
