// Keeps the UI slices in step with the Core: a load, then events; the load again after the page reconnects (to the
// same Core, or a new one on the profile). Terminal events are routed elsewhere.
import { core, call } from '../client/core.js';
import { useTargets } from './targets.js';
import { useBackends } from './backends.js';
import { useActivity } from './activity.js';
import { useProcesses } from './processes.js';
import { useApprovals } from './approvals.js';
import { loadSettings } from './settings.js';

let started = false;

export function startSync(): void {
  if (started) return;
  started = true;
  core.on('targets.changed', (list) => useTargets.getState().set(list));
  core.on('targets.problems', (problems) => useTargets.getState().setProblems(problems));
  core.on('activity', (entry) => useActivity.getState().upsert(entry));
  core.on('processes.changed', (list) => useProcesses.getState().upsert(list));
  core.on('approvals.changed', (list) => useApprovals.getState().set(list));
  core.on('approvals.rules', (rules) => useApprovals.getState().setRules(rules));
  // Enabling or disabling a plugin adds or drops backends: the Add-target form and the labels follow.
  core.on('backends.changed', (list) => useBackends.getState().set(list));
  void loadSettings({ get: () => call('settings.get', {}), put: (s) => call('settings.save', s) });
  load();
  core.onReopen(() => {
    load();
    void call('processes.list', {}).then((list) => list && useProcesses.getState().replace(list));
  });
}

function load(): void {
  void call('targets.problems', {}).then((p) => p && useTargets.getState().setProblems(p));
  void call('approvals.pending', {}).then((list) => list && useApprovals.getState().set(list));
  void call('targets.list', {}).then((list) => list && useTargets.getState().set(list));
  void call('backends.list', {}).then((list) => list && useBackends.getState().set(list));
  void call('activity.list', { limit: 200 }).then((list) => list && useActivity.getState().load(list));
}

/** The Processes panel asks for a target's processes (or every target's) when it starts showing them. */
export async function loadProcesses(target: string | undefined): Promise<void> {
  const list = await call('processes.list', target ? { execution_target: target } : {});
  if (list) useProcesses.getState().upsert(list);
}
