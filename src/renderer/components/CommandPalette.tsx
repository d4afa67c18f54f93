// The command palette (Ctrl+Shift+P): every command with its key, filtered as you type; Enter runs, Escape closes.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { useUi } from '../store/ui.js';
import { useLayout } from '../store/layout.js';
import { runCommand } from '../actions.js';
import { commands, shortcutOf, type CommandId } from '../keyboard.js';
import { Modal } from './dialogs/Modal.js';
import { looksLikeQuickConnect, parseQuickConnect, quickConnectLabel } from '../../shared/quickConnect.js';
import { quickConnect } from '../quickConnect.js';
import { useTargets } from '../store/targets.js';
import { paletteTargets } from '../targetFilter.js';
import { focusTerminal } from '../terminal/sessions.js';

/** Commands whose words all occur in the title (or the key), in any order. */
export function filterCommands(query: string): CommandId[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return (Object.keys(commands) as CommandId[]).filter((id) => {
    if (id === 'palette') return false;
    const hay = `${commands[id].title} ${shortcutOf(id) ?? ''}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export function CommandPalette() {
  const open = useUi((s) => s.paletteOpen);
  return open ? <PaletteBody /> : null;
}

function PaletteBody() {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const commandList = useMemo(() => filterCommands(query), [query]);
  // `user@host:port` or `ssh …`: the first entry connects to it (quick connect), above any command that matches.
  const connect = useMemo(() => (looksLikeQuickConnect(query) ? parseQuickConnect(query) : undefined), [query]);
  // "New terminal on …": the targets the sidebar's filter finds for the same words.
  const targets = useTargets((s) => s.list);
  const onTargets = useMemo(() => paletteTargets(targets, query), [targets, query]);
  const list: Array<CommandId | 'quickConnect' | `target:${string}`> = [
    ...(connect?.ok ? (['quickConnect'] as const) : []),
    ...commandList,
    ...onTargets.map((n) => `target:${n}` as const),
  ];
  const paneId = useLayout.getState().focusedPaneId;
  const close = (): void => useUi.getState().setPalette(false);
  const run = (id: (typeof list)[number] | undefined): void => {
    if (!id) return;
    close();
    if (id === 'quickConnect') {
      if (connect?.ok) void quickConnect(connect.value);
      return;
    }
    if (id.startsWith('target:')) {
      const name = id.slice('target:'.length);
      requestAnimationFrame(() => focusTerminal(useLayout.getState().newTab(name)));
      return;
    }
    // After the dialog is gone and focus is back where it was, so the command acts on the window, not the palette.
    requestAnimationFrame(() => runCommand(id as CommandId, paneId));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'ArrowDown') setActive((a) => Math.min(list.length - 1, a + 1));
    else if (e.key === 'ArrowUp') setActive((a) => Math.max(0, a - 1));
    else if (e.key === 'Enter') run(list[active]);
    else return;
    e.preventDefault();
  };
  const activeId = list[active] ? `cmd-${list[active]!.replace(':', '-')}` : undefined;
  return (
    <Modal title="Commands" onCancel={close} width={520}>
      <input
        className="palette__input"
        type="text"
        role="combobox"
        aria-label="Type a command"
        aria-expanded="true"
        aria-controls="palette-list"
        aria-activedescendant={activeId}
        placeholder="Type a command, or user@host:port to connect…"
        data-autofocus
        spellCheck={false}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <div className="palette__list" id="palette-list" role="listbox" aria-label="Commands">
        {list.map((id, i) => (
          // The input keeps the focus (aria-activedescendant): the arrows there pick an option, or a click does.
          // biome-ignore lint/a11y/useFocusableInteractive: focus stays in the input (aria-activedescendant)
          // biome-ignore lint/a11y/useKeyWithClickEvents: the input's arrows and Enter are the keys
          <div
            key={id}
            id={`cmd-${id.replace(':', '-')}`}
            role="option"
            aria-selected={i === active}
            className={`palette__item${i === active ? ' palette__item--active' : ''}`}
            onMouseMove={() => setActive(i)}
            onClick={() => run(id)}
          >
            {id === 'quickConnect' ? (
              <span>Connect to {connect?.ok ? quickConnectLabel(connect.value) : ''}</span>
            ) : id.startsWith('target:') ? (
              <span>New terminal on {id.slice('target:'.length)}</span>
            ) : (
              <>
                <span>{commands[id as CommandId].title}</span>
                {shortcutOf(id as CommandId) && <kbd>{shortcutOf(id as CommandId)}</kbd>}
              </>
            )}
          </div>
        ))}
      </div>
      {connect && !connect.ok && (
        <p className="palette__empty" role="status">
          Quick connect: {connect.problem}
        </p>
      )}
      {list.length === 0 && !connect && (
        <p className="palette__empty" role="status">
          No command matches.
        </p>
      )}
    </Modal>
  );
}
