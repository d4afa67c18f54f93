// workspace.* and settings.*: the window's layout and settings in the profile's key-value store; a stored value that no longer parses is ignored.
import { UiSettings, WorkspaceLayout } from '../../../shared/api.js';
import type { Handlers } from '../handlers.js';
import { confStore, type KeyValueStore, type KeyValueStoreFactory } from './workspaceStore.js';

const KEY = 'workspace';
const SETTINGS_KEY = 'settings';

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
    'settings.get': async () => {
      const parsed = UiSettings.safeParse((await open()).get(SETTINGS_KEY));
      return parsed.success ? parsed.data : null;
    },
    'settings.save': async (settings) => {
      (await open()).set(SETTINGS_KEY, settings);
      return {};
    },
  } satisfies Partial<Handlers>;
}
