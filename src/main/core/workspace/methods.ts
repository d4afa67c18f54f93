// workspace.* and settings.*: the window's layout and settings in the profile's key-value store; a stored value that no
// longer parses is ignored.
import type { z } from 'zod';
import { UiSettings, WorkspaceLayout } from '../../../shared/api.js';
import type { Handlers } from '../platform/index.js';
import { confStore, type KeyValueStore, type KeyValueStoreFactory } from './workspaceStore.js';

export function workspaceMethods(deps: { home: string; store?: KeyValueStoreFactory }) {
  let store: Promise<KeyValueStore> | undefined;
  const open = (): Promise<KeyValueStore> => (store ??= (deps.store ?? confStore)(deps.home));
  /** One key of the store: read back only while it still parses, written as given (the API checked it). */
  const kept = <S extends z.ZodType>(key: string, schema: S) => ({
    get: async (): Promise<z.infer<S> | null> => {
      const parsed = schema.safeParse((await open()).get(key));
      return parsed.success ? parsed.data : null;
    },
    save: async (value: z.infer<S>): Promise<Record<string, never>> => {
      (await open()).set(key, value);
      return {};
    },
  });
  const layout = kept('workspace', WorkspaceLayout);
  const settings = kept('settings', UiSettings);
  return {
    'workspace.get': layout.get,
    'workspace.save': layout.save,
    'settings.get': settings.get,
    'settings.save': settings.save,
  } satisfies Partial<Handlers>;
}
