// The Backends slice: what backends.list says (built-ins and enabled plugins), replaced whole on backends.changed.
import { create } from 'zustand';
import type { BackendInfo } from '../../shared/specFields.js';
import type { TargetInfo } from '../../shared/targets.js';

interface BackendsState {
  loaded: boolean;
  list: BackendInfo[];
  set(list: BackendInfo[]): void;
}

export const useBackends = create<BackendsState>((set) => ({
  loaded: false,
  list: [],
  set: (list) => set({ loaded: true, list }),
}));

/** How the window names and pictures one backend. */
export interface BackendView {
  /**
   * A plugin backend's display name; a built-in's name (`local`, `ssh`, `docker` say what they are), and the name
   * of one the Core does not list (a disabled plugin).
   */
  label: string;
  /** One line for a tooltip: display name, backend name and plugin. */
  line: string;
  /** Drawn with the fallback icon: a plugin's backend, or one the Core does not list. */
  fallbackIcon: boolean;
}

export function backendView(backend: string, info: BackendInfo | undefined, loaded: boolean): BackendView {
  const label = (info?.plugin && info.display_name) || backend;
  const line = info?.plugin
    ? `${label} (backend ${backend}, plugin ${info.plugin})`
    : !info && loaded
      ? `${backend} (no such backend is loaded: is its plugin enabled?)`
      : label === backend
        ? backend
        : `${label} (${backend})`;
  return { label, line, fallbackIcon: Boolean(info?.plugin) || (!info && loaded) };
}

/** The view of one backend, live: it follows backends.changed. */
export function useBackendView(backend: string): BackendView {
  const info = useBackends((s) => s.list.find((b) => b.backend === backend));
  const loaded = useBackends((s) => s.loaded);
  return backendView(backend, info, loaded);
}

/** Said wherever a pane would open on a target whose backend runs commands but has no shell stream. */
export const NO_SHELL = 'no interactive shell on this backend';

/**
 * Can a pane open on this target? Its backend must stream (a shell); a target without flags (its plugin is not
 * loaded) is offered, and the Core says why when it cannot open.
 */
export function offersPane(flags: TargetInfo['flags']): boolean {
  return flags?.supports_streams ?? true;
}
