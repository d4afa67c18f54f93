// Add or edit a runtime target: name, backend and the fields that backend declares (from backends.list), checked
// against the schema derived from them before it is sent.
import { useEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { TargetName } from '../../../shared/targets.js';
import { commonFields, specSchemaOf, type BackendInfo, type SpecFieldInfo } from '../../../shared/specFields.js';
import { formatZodError } from '../../../shared/errors.js';
import { core } from '../../client/core.js';
import { useBackends } from '../../store/backends.js';
import { useDialogs, type TargetDialogRequest } from '../../store/dialogs.js';
import { useToasts } from '../../store/toasts.js';
import { Modal } from './Modal.js';
import { formProblems } from '../../fieldProblems.js';
import { useTargets } from '../../store/targets.js';
import { QuickConnectFields } from './QuickConnectFields.js';

const commonKeys: ReadonlySet<string> = new Set(commonFields.map((f) => f.key));

/** A spec value as the text of its input: lists one per line, maps NAME=value per line. */
function fieldText(v: unknown): string | undefined {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(String).join('\n');
  if (v && typeof v === 'object')
    return Object.entries(v)
      .map(([k, x]) => `${k}=${String(x)}`)
      .join('\n');
  return undefined;
}

/**
 * The text of an input as the value its field type takes; a number that is not one stays text for the schema to refuse.
 */
function fieldValue(f: SpecFieldInfo, raw: string): unknown {
  switch (f.type) {
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    case 'boolean':
      return raw === 'true';
    case 'list':
      return raw
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    case 'map':
      return Object.fromEntries(
        raw
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => {
            const eq = l.indexOf('=');
            return eq < 0 ? [l, ''] : [l.slice(0, eq), l.slice(eq + 1)];
          }),
      );
    default:
      return raw;
  }
}

/** The form's texts for a spec (and a name). */
function specValues(name: string, spec: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = { name, backend: typeof spec.backend === 'string' ? spec.backend : '' };
  for (const [k, v] of Object.entries(spec)) {
    const text = fieldText(v);
    if (text !== undefined) out[k] = text;
  }
  return out;
}

function initialValues(req: TargetDialogRequest, firstBackend: string): Record<string, string> {
  if (req.mode === 'edit') return specValues(req.target.name, req.target.spec);
  if (req.prefill) return specValues(req.prefill.name, req.prefill.spec);
  return { backend: firstBackend, name: '', cwd: '' };
}

function FieldInput(props: {
  f: SpecFieldInfo;
  value: string;
  onChange: (v: string) => void;
  autoFocus: boolean;
  problem: string | undefined;
}) {
  const { f, value, autoFocus, problem } = props;
  const onChange = (e: { target: { value: string } }) => props.onChange(e.target.value);
  const problemId = `field-problem-${f.key}`;
  // The fields arrive after the dialog opened, so the first one takes the focus itself when editing.
  const common = {
    value,
    onChange,
    title: f.help,
    autoFocus,
    'data-autofocus': autoFocus ? true : undefined,
    name: f.key,
    id: `field-${f.key}`,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': problem ? problemId : undefined,
  };
  let input: ReactElement;
  if (f.type === 'boolean' || f.type === 'select') {
    input = (
      <select {...common}>
        <option value="">
          {f.default === undefined
            ? 'default'
            : `default (${typeof f.default === 'boolean' ? (f.default ? 'yes' : 'no') : String(f.default)})`}
        </option>
        {(f.type === 'boolean' ? ['true', 'false'] : (f.options ?? [])).map((o) => (
          <option key={o} value={o}>
            {f.type === 'boolean' ? (o === 'true' ? 'yes' : 'no') : o}
          </option>
        ))}
      </select>
    );
  } else if (f.type === 'list' || f.type === 'map' || f.type === 'text') {
    input = (
      <textarea
        {...common}
        rows={3}
        placeholder={f.placeholder ?? (f.type === 'map' ? 'NAME=value' : undefined)}
        spellCheck={false}
      />
    );
  } else {
    input = (
      <input
        {...common}
        placeholder={f.placeholder}
        inputMode={f.type === 'number' ? 'numeric' : undefined}
        autoComplete="off"
        spellCheck={false}
      />
    );
  }
  return (
    <label className={`field${problem ? ' field--invalid' : ''}`} htmlFor={`field-${f.key}`}>
      <span>{f.label}</span>
      {input}
      {problem && (
        <span className="field__problem" id={problemId}>
          {problem}
        </span>
      )}
    </label>
  );
}

export function TargetDialog({ req }: { req: TargetDialogRequest }) {
  const close = useDialogs((s) => s.closeTargetForm);
  // Live: enabling or disabling a plugin while the form is open adds or drops its backend here (backends.changed).
  const loaded = useBackends((s) => s.loaded);
  const list = useBackends((s) => s.list);
  const backends: BackendInfo[] | undefined = loaded ? list : undefined;
  const [values, setValues] = useState<Record<string, string>>(() => initialValues(req, list[0]?.backend ?? ''));
  const [error, setError] = useState<{ message: string; hint?: string }>();
  /** What the last check said of each field, shown under it until the field is changed. */
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const editing = req.mode === 'edit';
  const targetNames = useTargets((s) => s.list.map((t) => t.name).join('\n'));
  /** The name quick connect last put in: it follows the host typed until the person writes a name of their own. */
  const autoName = useRef('');

  useEffect(() => {
    // A new target starts on the first backend the Core lists, once it has listed any.
    const first = list[0]?.backend;
    if (first) setValues((v) => (v.backend ? v : { ...v, backend: first }));
  }, [list]);

  const backend = values.backend ?? '';
  const info = backends?.find((b) => b.backend === backend);
  // A backend the Core does not list (a disabled plugin) still shows its common fields.
  const fields: SpecFieldInfo[] =
    info?.fields ??
    commonFields.map((f) => ({ required: false, secret_ref: false, private: false, advanced: false, ...f }));
  const own = fields.filter((f) => !f.advanced && !commonKeys.has(f.key));
  const shared = fields.filter((f) => !f.advanced && commonKeys.has(f.key));
  const advanced = fields.filter((f) => f.advanced);
  const first = own[0] ?? shared[0];
  const set = (key: string) => (v: string) => {
    setValues((old) => ({ ...old, [key]: v }));
    setProblems(({ [key]: _, ...rest }) => rest);
  };
  const input = (f: SpecFieldInfo) => (
    <FieldInput
      key={f.key}
      f={f}
      value={values[f.key] ?? ''}
      onChange={set(f.key)}
      autoFocus={editing && f === first}
      problem={problems[f.key]}
    />
  );

  const buildSpec = (): Record<string, unknown> => {
    // Editing keeps keys the form does not show (plugin fields of an unlisted backend) and replaces the ones it does.
    const spec: Record<string, unknown> = editing && req.target.backend === backend ? { ...req.target.spec } : {};
    spec.backend = backend;
    for (const f of fields) {
      const raw = (values[f.key] ?? '').trim();
      if (!raw) delete spec[f.key];
      else spec[f.key] = fieldValue(f, raw);
    }
    return spec;
  };

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const name = (values.name ?? '').trim();
    const nameCheck = TargetName.safeParse(name);
    if (!nameCheck.success) return setError({ message: formatZodError(nameCheck.error) });
    const spec = buildSpec();
    if (info) {
      const check = specSchemaOf(info.backend, info.fields, info.exactly_one).safeParse(spec);
      if (!check.success) {
        const found = formProblems(check.error, info.fields, spec);
        const marked = Object.keys(found.byField);
        setProblems(found.byField);
        setError({
          message:
            found.other[0] ??
            (marked.length === 1 ? 'Check the marked field' : `Check the ${marked.length} marked fields`),
        });
        // The first marked field gets the focus, "More options" opened if it is there.
        requestAnimationFrame(() => {
          const el = document.querySelector<HTMLElement>(`.modal [name="${marked[0] ?? ''}"]`);
          el?.closest('details')?.setAttribute('open', '');
          el?.focus();
        });
        return;
      }
    }
    setBusy(true);
    setError(undefined);
    setProblems({});
    try {
      await core.call(
        'targets.register',
        editing ? { name, spec, replace: true, if_generation: req.target.generation } : { name, spec },
      );
      useToasts
        .getState()
        .push({ kind: 'info', message: editing ? `Target "${name}" updated` : `Target "${name}" added` });
      close();
    } catch (err) {
      const x = err as { message?: string; hint?: string };
      setError({ message: x.message ?? String(err), ...(x.hint ? { hint: x.hint } : {}) });
      setBusy(false);
    }
  };

  return (
    <Modal title={editing ? `Edit target ${req.target.name}` : 'Add target'} onCancel={close}>
      <form className="form" onSubmit={(e) => void submit(e)}>
        <p className="form__note">
          {editing
            ? 'Saving registers a new generation; open terminals keep the old one until they close.'
            : req.prefill
              ? 'Kept in the registry once added: it stays after Switchboard stops, unlike a quick connection.'
              : 'A runtime target, kept in the registry. Targets in config.yaml are edited there.'}
        </p>
        <div className="form__row">
          <label className="field">
            <span>Name</span>
            <input
              data-autofocus={editing ? undefined : true}
              value={values.name ?? ''}
              onChange={(e) => set('name')(e.target.value)}
              disabled={editing}
              placeholder="gpu-box"
              autoComplete="off"
              spellCheck={false}
            />
          </label>
          <label className="field field--narrow">
            <span>Backend</span>
            <select value={backend} onChange={(e) => set('backend')(e.target.value)} disabled={editing && !info}>
              {(backends ?? []).map((b) => (
                <option key={b.backend} value={b.backend}>
                  {b.display_name ?? b.backend}
                </option>
              ))}
              {!info && backend && <option value={backend}>{`${backend} (not loaded)`}</option>}
            </select>
          </label>
        </div>
        {!editing && info?.quick_connect && (
          <QuickConnectFields
            taken={new Set(targetNames.split('\n'))}
            onFill={(name, spec) => {
              // The typed or picked host replaces the SSH fields; a name already typed is kept.
              setValues((old) => {
                const own = old.name && old.name !== autoName.current;
                if (!own) autoName.current = name;
                return { ...specValues(own ? (old.name ?? name) : name, spec), cwd: old.cwd ?? '' };
              });
              setProblems({});
            }}
          />
        )}
        {own.length > 0 && <div className="form__grid">{own.map(input)}</div>}
        {shared.map(input)}
        {advanced.length > 0 && (
          <details className="form__more">
            <summary>More options</summary>
            <div className="form__grid">{advanced.map(input)}</div>
          </details>
        )}
        {error && (
          <div className="form__error" role="alert">
            <strong>{error.message}</strong>
            {error.hint && <span>{error.hint}</span>}
          </div>
        )}
        <div className="modal__actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={busy || !backends}>
            {editing ? 'Save' : 'Add target'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
