// Settings: font, zoom, scrollback, theme, colour scheme, cursor, copy-on-select, Ctrl+V, renderer. Applied at once to
// every terminal; kept in the profile.
import { useId, useRef, useState } from 'react';
import { useUi } from '../store/ui.js';
import { useDialogs } from '../store/dialogs.js';
import { FONT_SIZE, SCROLLBACK, useSettings, type Settings } from '../store/settings.js';
import { useLayout } from '../store/layout.js';
import { sessions } from '../terminal/sessions.js';
import { Modal } from './dialogs/Modal.js';
import { MONO_FONT } from '../terminal/theme.js';
import { terminalSchemes, WINDOW_SCHEME, type TerminalScheme } from '../terminal/colorSchemes.js';
import { useColorScheme } from '../store/colorScheme.js';
import { SchemePreview } from './SchemePreview.js';

/** Fonts terminal users ask for most; any installed family can be typed instead. */
const FONT_SUGGESTIONS = ['JetBrains Mono', 'Fira Code', 'Cascadia Code', 'DejaVu Sans Mono', 'Menlo'];

const schemeList = Object.entries(terminalSchemes) as Array<[string, TerminalScheme]>;

/** The colour scheme picker with a preview of the choice. */
function SchemeField({ value, onChange }: { value: Settings['terminalScheme']; onChange(id: string): void }) {
  const theme = useSettings((s) => s.theme);
  const system = useColorScheme((s) => s.system);
  const windowScheme = theme === 'system' ? system : theme;
  const name = value === WINDOW_SCHEME ? 'Switchboard' : terminalSchemes[value].name;
  return (
    <div className="field">
      <span>
        <label htmlFor="settings-scheme">Terminal colours</label>
      </span>
      <div className="scheme-field">
        <select id="settings-scheme" value={value} onChange={(e) => onChange(e.target.value)}>
          <option value={WINDOW_SCHEME}>Switchboard (follows the theme)</option>
          <optgroup label="Dark">
            {schemeList
              .filter(([, s]) => s.dark)
              .map(([id, s]) => (
                <option key={id} value={id}>
                  {s.name}
                </option>
              ))}
          </optgroup>
          <optgroup label="Light">
            {schemeList
              .filter(([, s]) => !s.dark)
              .map(([id, s]) => (
                <option key={id} value={id}>
                  {s.name}
                </option>
              ))}
          </optgroup>
        </select>
        <SchemePreview scheme={value} windowScheme={windowScheme} name={name} />
      </div>
    </div>
  );
}

/**
 * A whole number typed freely and applied when the field is left (Tab, a click elsewhere) or Enter is pressed: the
 * digits on the way to "20000" (2, 20, 200 …) are never applied, and a value out of range is brought within it. The
 * arrow keys and the spinner apply each step at once.
 */
export function NumberField({
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
  /** What is typed, while it differs from the value; undefined shows the value. */
  const [draft, setDraft] = useState<string>();
  /** The next change comes from a step (an arrow key, the spinner), not from typing. */
  const stepping = useRef(false);
  const problemId = useId();
  const text = draft ?? String(value);
  const typed = Number(text);
  const whole = text.trim() !== '' && Number.isInteger(typed);
  const problem = draft !== undefined && (!whole || typed < min || typed > max) ? `${min}–${max}` : undefined;
  const commit = (): void => {
    if (draft === undefined) return;
    setDraft(undefined);
    if (whole) onChange(Math.min(max, Math.max(min, typed)));
  };
  return (
    <label className={`field field--narrow${problem ? ' field--invalid' : ''}`}>
      <span>{label}</span>
      <input
        type="number"
        min={min}
        max={max}
        value={text}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        onKeyDown={(e) => {
          stepping.current = ['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown'].includes(e.key);
          if (e.key === 'Enter') commit();
        }}
        onPointerDown={() => {
          stepping.current = true;
        }}
        onChange={(e) => {
          const next = e.target.value;
          const n = Number(next);
          if (stepping.current && Number.isInteger(n) && n >= min && n <= max) {
            setDraft(undefined);
            onChange(n);
          } else setDraft(next);
        }}
        onBlur={commit}
      />
      {problem && (
        <span className="field__problem" id={problemId}>
          a whole number, {problem}
        </span>
      )}
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
          <span>
            Font family <span className="field__hint">· a font this machine lacks falls back to monospace</span>
          </span>
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
        <fieldset className="font-suggestions" aria-label="Suggested fonts">
          {FONT_SUGGESTIONS.map((f) => (
            <button
              key={f}
              type="button"
              className="chip font-suggestions__item"
              aria-pressed={s.fontFamily === f}
              onClick={() => update({ fontFamily: f })}
            >
              {f}
            </button>
          ))}
        </fieldset>
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
              <option value="high-contrast">High contrast</option>
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
        <SchemeField
          value={s.terminalScheme}
          onChange={(id) => update({ terminalScheme: id as Settings['terminalScheme'] })}
        />
        <label className="field">
          <span>Minimum text contrast</span>
          <select
            value={s.minimumContrast}
            aria-describedby="settings-contrast-note"
            onChange={(e) => update({ minimumContrast: Number(e.target.value) as Settings['minimumContrast'] })}
          >
            <option value={4.5}>4.5:1 (WCAG AA, as VS Code)</option>
            <option value={7}>7:1 (WCAG AAA)</option>
            <option value={1}>None: the scheme's exact colours</option>
          </select>
        </label>
        <p className="form__note" id="settings-contrast-note">
          Text too close to its background is drawn lighter or darker until it reaches this contrast.
        </p>
        <div className="form__row form__row--center">
          <label className="field field--narrow">
            <span>Cursor</span>
            <select
              value={s.cursorStyle}
              onChange={(e) => update({ cursorStyle: e.target.value as Settings['cursorStyle'] })}
            >
              <option value="bar">Bar</option>
              <option value="block">Block</option>
              <option value="underline">Underline</option>
            </select>
          </label>
          <Check label="Blinking cursor" checked={s.cursorBlink} onChange={(cursorBlink) => update({ cursorBlink })} />
          <Check
            label="Copy on select"
            checked={s.copyOnSelect}
            onChange={(copyOnSelect) => update({ copyOnSelect })}
            hint="What you select with the mouse goes to the clipboard."
          />
        </div>
        <Check
          label="Ctrl+V pastes (instead of sending ^V to the program)"
          checked={s.ctrlVPastes}
          onChange={(ctrlVPastes) => update({ ctrlVPastes })}
          hint="Ctrl+Shift+V always pastes."
        />
        <Check
          label="Compact target rows (one line each)"
          checked={s.compactTargets}
          onChange={(compactTargets) => update({ compactTargets })}
        />
        <Check
          label="Screen reader mode (terminals read their rows and new output)"
          checked={s.screenReaderMode}
          onChange={(screenReaderMode) => update({ screenReaderMode })}
          hint="xterm's accessibility tree: a screen reader can walk the rows and hears new output as it arrives."
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
