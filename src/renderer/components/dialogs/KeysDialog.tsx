// Keyboard shortcuts: every command with its keys for this window (Electron or a browser), each changeable by pressing
// the new key. Kept in the profile (settings `keys`), so every window on it follows.
import { useState, type KeyboardEvent } from 'react';
import {
  assignChord,
  chordOf,
  commands,
  isOverridden,
  keysOf,
  parseKeyOverrides,
  type CommandId,
} from '../../keyboard.js';
import { useDialogs } from '../../store/dialogs.js';
import { useSettings } from '../../store/settings.js';
import { Modal } from './Modal.js';
import { DialogTable, DoneActions } from './DialogTable.js';

/** Keys that only modify: a chord needs one more. */
const modifiersOnly = /^(Control|Alt|Shift|Meta|AltGraph|CapsLock)$/;

export function KeysDialog() {
  const close = (): void => useDialogs.getState().setKeysOpen(false);
  const saved = useSettings((s) => s.keys);
  const [recording, setRecording] = useState<CommandId>();
  const [said, setSaid] = useState('');
  const overrides = parseKeyOverrides(saved);
  const save = (next: Partial<Record<CommandId, readonly string[]>>): void =>
    useSettings.getState().update({ keys: JSON.stringify(next) });

  const record =
    (id: CommandId) =>
    (e: KeyboardEvent<HTMLButtonElement>): void => {
      if (recording !== id || modifiersOnly.test(e.key)) return;
      // The key is the new shortcut: neither the dialog (Escape, Tab) nor the window acts on it.
      e.preventDefault();
      e.stopPropagation();
      setRecording(undefined);
      if (e.key === 'Escape' && !e.ctrlKey && !e.altKey && !e.shiftKey) return setSaid('Unchanged.');
      const chord = chordOf(e);
      const { next, takenFrom } = assignChord(overrides, id, chord);
      save(next);
      setSaid(
        `${commands[id].title}: ${chord}${
          takenFrom
            ? ` (taken from ${commands[takenFrom].title}, which ` +
              `has ${next[takenFrom]?.length ? next[takenFrom]!.join(', ') : 'no key now'})`
            : ''
        }.`,
      );
    };
  const reset = (id: CommandId): void => {
    const { [id]: _, ...rest } = overrides;
    save(rest);
    setSaid(`${commands[id].title}: back to ${keysOf(id).join(', ') || 'no key'}.`);
  };

  return (
    <Modal title="Keyboard shortcuts" onCancel={close} width={640} describedBy="keys-note">
      <p className="form__note" id="keys-note">
        Change a command's key with <strong>Change</strong>, then press the new key (Escape leaves it as it was). In a
        browser, the keys it keeps for itself (Ctrl+T, Ctrl+W, Ctrl+Tab, Ctrl+1…9) never reach the page: each such
        command has another one, listed first. Kept in your Switchboard profile.
      </p>
      <p className="visually-hidden" role="status">
        {said}
      </p>
      <DialogTable
        label="Keyboard shortcuts"
        className="keys"
        empty={undefined}
        columns={[
          'Command',
          'Keys',
          <span key="actions" className="visually-hidden">
            Actions
          </span>,
        ]}
      >
        {(Object.keys(commands) as CommandId[]).map((id) => (
          <tr key={id} aria-label={commands[id].title}>
            <td>{commands[id].title}</td>
            <td className="keys__keys">
              {keysOf(id).map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
              {keysOf(id).length === 0 && <span className="dim">none</span>}
            </td>
            <td className="keys__actions">
              <button
                type="button"
                className={`button button--small${recording === id ? ' button--recording' : ''}`}
                aria-label={
                  recording === id
                    ? `Press the new key for ${commands[id].title}`
                    : `Change the key of ${commands[id].title}`
                }
                onClick={() => setRecording(recording === id ? undefined : id)}
                onKeyDown={record(id)}
                onBlur={() => recording === id && setRecording(undefined)}
              >
                {recording === id ? 'Press a key…' : 'Change'}
              </button>
              {isOverridden(id) && (
                <button
                  type="button"
                  className="button button--small"
                  aria-label={`Reset the key of ${commands[id].title}`}
                  onClick={() => reset(id)}
                >
                  Reset
                </button>
              )}
            </td>
          </tr>
        ))}
      </DialogTable>
      {said && <p className="form__note keys__said">{said}</p>}
      <DoneActions onDone={close} />
    </Modal>
  );
}
