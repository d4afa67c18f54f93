// Add or edit a runtime target: name, backend and the backend's routing fields; checked against the shared spec schema before it is sent.
import { useState, type FormEvent } from 'react';
import { TargetName, builtinBackends, builtinSpecSchemas, type BuiltinBackend } from '../../../shared/targets.js';
import { formatZodError } from '../../../shared/errors.js';
import { core } from '../../client/core.js';
import { useDialogs, type TargetDialogRequest } from '../../store/dialogs.js';
import { useToasts } from '../../store/toasts.js';
import { Modal } from './Modal.js';

/** The form's fields per backend: key in the spec, label, placeholder, and whether it is a number. */
const fields: Record<BuiltinBackend, Array<{ key: string; label: string; placeholder?: string; number?: boolean }>> = {
  local: [],
  ssh: [
    { key: 'ssh_host', label: 'Host', placeholder: 'compute.example.com' },
    { key: 'ssh_port', label: 'Port', placeholder: '22', number: true },
    { key: 'ssh_user', label: 'User', placeholder: 'agent' },
    { key: 'ssh_key', label: 'Key file', placeholder: '~/.ssh/id_ed25519' },
  ],
  docker: [
    { key: 'docker_image', label: 'Image', placeholder: 'python:3.12' },
    { key: 'docker_container', label: 'Container', placeholder: 'or an existing container' },
  ],
};

const isBuiltin = (b: string): b is BuiltinBackend => (builtinBackends as readonly string[]).includes(b);

function initialValues(req: TargetDialogRequest): Record<string, string> {
  if (req.mode === 'add') return { backend: 'local', name: '', cwd: '' };
  const out: Record<string, string> = { name: req.target.name, backend: req.target.backend };
  for (const [k, v] of Object.entries(req.target.spec)) if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
  return out;
}

export function TargetDialog({ req }: { req: TargetDialogRequest }) {
  const close = useDialogs((s) => s.closeTargetForm);
  const [values, setValues] = useState<Record<string, string>>(() => initialValues(req));
  const [error, setError] = useState<{ message: string; hint?: string }>();
  const [busy, setBusy] = useState(false);
  const editing = req.mode === 'edit';
  const backend = values.backend ?? 'local';
  const set = (key: string) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  const buildSpec = (): Record<string, unknown> => {
    // Editing keeps keys the form does not show (timeouts, plugin fields) and replaces the ones it does.
    const spec: Record<string, unknown> = editing && req.target.backend === backend ? { ...req.target.spec } : {};
    spec.backend = backend;
    const shown = [...(isBuiltin(backend) ? fields[backend] : []), { key: 'cwd', label: '' }];
    for (const f of shown) {
      const raw = (values[f.key] ?? '').trim();
      if (!raw) delete spec[f.key];
      else spec[f.key] = 'number' in f && f.number ? Number(raw) : raw;
    }
    return spec;
  };

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const name = (values.name ?? '').trim();
    const nameCheck = TargetName.safeParse(name);
    if (!nameCheck.success) return setError({ message: formatZodError(nameCheck.error) });
    const spec = buildSpec();
    if (isBuiltin(backend)) {
      const check = builtinSpecSchemas[backend].safeParse(spec);
      if (!check.success) return setError({ message: formatZodError(check.error) });
    }
    setBusy(true);
    setError(undefined);
    try {
      await core.call('targets.register', editing
        ? { name, spec, replace: true, if_generation: req.target.generation }
        : { name, spec });
      useToasts.getState().push({ kind: 'info', message: editing ? `Target "${name}" updated` : `Target "${name}" added` });
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
            : 'A runtime target, kept in the registry. Targets in config.yaml are edited there.'}
        </p>
        <div className="form__row">
          <label className="field">
            <span>Name</span>
            <input data-autofocus={editing ? undefined : true} value={values.name ?? ''} onChange={set('name')} disabled={editing}
              placeholder="gpu-box" autoComplete="off" spellCheck={false} />
          </label>
          <label className="field field--narrow">
            <span>Backend</span>
            <select value={backend} onChange={set('backend')} disabled={editing && !isBuiltin(backend)}>
              {builtinBackends.map((b) => <option key={b} value={b}>{b}</option>)}
              {!isBuiltin(backend) && <option value={backend}>{backend}</option>}
            </select>
          </label>
        </div>
        {isBuiltin(backend) && fields[backend].length > 0 && (
          <div className="form__grid">
            {fields[backend].map((f, i) => (
              <label key={f.key} className="field">
                <span>{f.label}</span>
                <input data-autofocus={editing && i === 0 ? true : undefined} value={values[f.key] ?? ''} onChange={set(f.key)}
                  placeholder={f.placeholder} inputMode={f.number ? 'numeric' : undefined} autoComplete="off" spellCheck={false} />
              </label>
            ))}
          </div>
        )}
        <label className="field">
          <span>Working directory</span>
          <input data-autofocus={editing && (!isBuiltin(backend) || fields[backend].length === 0) ? true : undefined}
            value={values.cwd ?? ''} onChange={set('cwd')} placeholder="~/project" autoComplete="off" spellCheck={false} />
        </label>
        {error && (
          <div className="form__error" role="alert">
            <strong>{error.message}</strong>
            {error.hint && <span>{error.hint}</span>}
          </div>
        )}
        <div className="modal__actions">
          <button type="button" className="button" onClick={close}>Cancel</button>
          <button type="submit" className="button button--primary" disabled={busy}>{editing ? 'Save' : 'Add target'}</button>
        </div>
      </form>
    </Modal>
  );
}
