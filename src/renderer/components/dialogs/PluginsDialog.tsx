// Plugins…: the installed plugin backends with Enable / Disable (and Restart for a failed one); enabling first says, in
// words, what the plugin allows.
import { useEffect, useState } from 'react';
import { pluginFlagSentences } from '../../../shared/pluginFlagSentences.js';
import type { PluginInfo } from '../../../shared/plugins.js';
import { call, core } from '../../client/core.js';
import { useDialogs } from '../../store/dialogs.js';
import { useToasts } from '../../store/toasts.js';
import { Modal } from './Modal.js';
import { DialogTable, DoneActions } from './DialogTable.js';

/** The confirmation before enabling: the plugin's manifest flags, in the same words the CLI prints. */
export function enableRequest(p: PluginInfo, enable: () => void) {
  return {
    title: `Enable ${p.name}?`,
    message:
      `${p.name}${p.version ? ` ${p.version}` : ''}` +
      (p.description ? ` — ${p.description.replace(/[.\s]+$/, '')}` : '') +
      '. Enabling it loads it now and at every start:',
    items: pluginFlagSentences(p.flags),
    itemsLabel: 'What enabling it allows',
    itemsAreSentences: true,
    confirmLabel: `Enable ${p.name}`,
    onConfirm: enable,
  };
}

export function PluginsDialog() {
  const [list, setList] = useState<PluginInfo[] | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const close = (): void => useDialogs.getState().setPluginsOpen(false);
  useEffect(() => {
    const refresh = (): void => void call('plugins.list', {}).then((l) => l && setList(l));
    refresh();
    // A plugin enabled elsewhere (the CLI), or one whose host crashed, shows its new state here.
    return core.on('backends.changed', refresh);
  }, []);

  const change = (p: PluginInfo, verb: 'enable' | 'disable' | 'restart'): void => {
    setBusy(p.name);
    void call(`plugins.${verb}`, { name: p.name }).then((info) => {
      setBusy(undefined);
      if (!info) return;
      setList((l) => l?.map((o) => (o.name === info.name ? info : o)));
      const problem = info.problem ? `: ${info.problem}` : '';
      useToasts.getState().push({
        kind: info.state === 'failed' || info.state === 'refused' ? 'error' : 'info',
        message: `Plugin ${info.name} is ${info.state}${problem}`,
      });
    });
  };
  const ask = (p: PluginInfo): void => useDialogs.getState().ask(enableRequest(p, () => change(p, 'enable')));

  return (
    <Modal title="Plugins" onCancel={close} width={720} describedBy="plugins-note">
      <p className="form__note" id="plugins-note">
        Plugin backends installed in this profile (<span className="mono">switchboard plugins install PATH</span> adds
        one). A plugin's code runs on this machine with your own powers; enabling one says first what it allows.
      </p>
      <DialogTable
        label="Installed plugins"
        className="plugins"
        empty={list === undefined ? 'Loading…' : list.length === 0 ? 'No plugins installed.' : undefined}
        columns={[
          'Plugin',
          'Version',
          'State',
          'Backends',
          <span key="actions" className="visually-hidden">
            Actions
          </span>,
        ]}
      >
        {list?.map((p) => (
          <tr key={p.name} aria-label={p.name}>
            <td>
              <span className="mono">{p.name}</span>
              {p.description && (
                <div className="dim plugins__description" title={p.description}>
                  {p.description}
                </div>
              )}
              {p.problem && (
                <div className="plugins__problem" title={p.problem}>
                  {p.problem}
                </div>
              )}
            </td>
            <td className="dim">{p.version ?? ''}</td>
            <td>
              <span className={`badge badge--plugin-${p.state}`}>{p.state}</span>
            </td>
            <td className="mono">{p.backends.join(', ')}</td>
            <td>
              {p.enabled && p.state === 'failed' && (
                <button
                  type="button"
                  className="button button--small"
                  disabled={busy === p.name}
                  aria-label={`Restart ${p.name}`}
                  onClick={() => change(p, 'restart')}
                >
                  Restart
                </button>
              )}
              {p.enabled ? (
                <button
                  type="button"
                  className="button button--small"
                  disabled={busy === p.name}
                  aria-label={`Disable ${p.name}`}
                  onClick={() => change(p, 'disable')}
                >
                  Disable
                </button>
              ) : (
                <button
                  type="button"
                  className="button button--small"
                  disabled={busy === p.name}
                  aria-label={`Enable ${p.name}…`}
                  onClick={() => ask(p)}
                >
                  Enable…
                </button>
              )}
            </td>
          </tr>
        ))}
      </DialogTable>
      <DoneActions onDone={close} />
    </Modal>
  );
}
