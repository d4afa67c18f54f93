// Settings: font, zoom, scrollback, theme, copy-on-select, Ctrl+V, renderer. Applied at once to every terminal; kept in
// the profile.
import { useUi } from '../store/ui.js';
import { useDialogs } from '../store/dialogs.js';
import { FONT_SIZE, SCROLLBACK, useSettings, type Settings } from '../store/settings.js';
import { useLayout } from '../store/layout.js';
import { sessions } from '../terminal/sessions.js';
import { Modal } from './dialogs/Modal.js';
import { MONO_FONT } from '../terminal/theme.js';

function NumberField({
  label,
  value,
  min,
  max,
  onChange,
}: {
  label: string;
  value: number;
  min: number;
  max: number;
  onChange(n: number): void;
}) {
  return (
    <label className="field field--narrow">
      <span>{label}</span>
      <input
        type="number"
        min={min}
        max={max}
        value={value}
        onChange={(e) => {
          const n = Number(e.target.value);
          if (Number.isInteger(n) && n >= min && n <= max) onChange(n);
        }}
      />
    </label>
  );
}

function Check({
  label,
  checked,
  onChange,
  hint,
}: {
  label: string;
  checked: boolean;
  onChange(v: boolean): void;
  hint?: string;
}) {
  return (
    <label className="check" title={hint}>
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <span>{label}</span>
    </label>
  );
}

export function SettingsDialog() {
  const open = useUi((s) => s.settingsOpen);
  return open ? <SettingsBody /> : null;
}

function SettingsBody() {
  const s = useSettings();
  const update = (patch: Partial<Settings>): void => s.update(patch);
  const focused = useLayout.getState().focusedPaneId;
  const renderer = focused ? sessions.get(focused)?.addons.renderer : undefined;
  return (
    <Modal title="Settings" onCancel={() => useUi.getState().setSettings(false)} width={480}>
      <div className="form">
        <p className="form__note">Applied to every terminal at once, and kept in your Switchboard profile.</p>
        <label className="field">
          <span>Font family</span>
          {/* Applied when the field is left, so a half-typed name never reaches the terminals; empty means the
              default. */}
          <input
            type="text"
            key={s.fontFamily}
            defaultValue={s.fontFamily}
            spellCheck={false}
            data-autofocus
            onBlur={(e) => update({ fontFamily: e.target.value.trim() || MONO_FONT })}
            onKeyDown={(e) => e.key === 'Enter' && e.currentTarget.blur()}
          />
        </label>
        <div className="form__row">
          <NumberField
            label="Font size"
            value={s.fontSize}
            min={FONT_SIZE.min}
            max={FONT_SIZE.max}
            onChange={(fontSize) => update({ fontSize })}
          />
          <label className="field field--narrow">
            <span>Zoom</span>
            <input
              type="text"
              readOnly
              value={s.zoom > 0 ? `+${s.zoom}` : String(s.zoom)}
              aria-describedby="zoom-hint"
            />
          </label>
          <NumberField
            label="Scrollback lines"
            value={s.scrollback}
            min={SCROLLBACK.min}
            max={SCROLLBACK.max}
            onChange={(scrollback) => update({ scrollback })}
          />
        </div>
        <p className="form__note" id="zoom-hint">
          Zoom with <kbd>Ctrl+=</kbd> <kbd>Ctrl+-</kbd>, reset with <kbd>Ctrl+0</kbd>.
        </p>
        <div className="form__row">
          <label className="field">
            <span>Theme</span>
            <select value={s.theme} onChange={(e) => update({ theme: e.target.value as Settings['theme'] })}>
              <option value="system">Follow the system</option>
              <option value="dark">Dark</option>
              <option value="light">Light</option>
            </select>
          </label>
          <label className="field">
            <span>Renderer</span>
            <select
              value={s.gpu}
              onChange={(e) => update({ gpu: e.target.value as Settings['gpu'] })}
              aria-describedby="renderer-now"
            >
              <option value="auto">Auto (WebGL on a real GPU)</option>
              <option value="on">WebGL</option>
              <option value="off">DOM</option>
            </select>
          </label>
        </div>
        {renderer && (
          <p className="form__note" id="renderer-now">
            The focused terminal draws with {renderer === 'webgl' ? 'WebGL' : 'the DOM renderer'}.
          </p>
        )}
        <Check label="Copy on select" checked={s.copyOnSelect} onChange={(copyOnSelect) => update({ copyOnSelect })} />
        <Check
          label="Ctrl+V pastes (instead of sending ^V to the program)"
          checked={s.ctrlVPastes}
          onChange={(ctrlVPastes) => update({ ctrlVPastes })}
          hint="Ctrl+Shift+V always pastes."
        />
      </div>
      <div className="modal__actions">
        <button
          type="button"
          className="button"
          onClick={() => {
            useUi.getState().setSettings(false);
            useDialogs.getState().setRulesOpen(true);
          }}
        >
          Approval rules…
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            useUi.getState().setSettings(false);
            useDialogs.getState().setKeysOpen(true);
          }}
        >
          Keys…
        </button>
        <span className="approve__spacer" />
        <button type="button" className="button" onClick={() => s.reset()}>
          Reset to defaults
        </button>
        <button type="button" className="button button--primary" onClick={() => useUi.getState().setSettings(false)}>
          Done
        </button>
      </div>
    </Modal>
  );
}
