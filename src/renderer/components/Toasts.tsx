// Error toasts: the one-line message in bold, the hint beneath it; dismissed by hand or after a few seconds.
import { useToasts } from '../store/toasts.js';
import { IconClose } from './icons.js';

export function Toasts() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  return (
    <section className="toasts" aria-label="Notifications">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast--${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <div className="toast__text">
            <div className="toast__message">{t.message}</div>
            {t.hint && <div className="toast__hint">{t.hint}</div>}
          </div>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            <IconClose size={12} />
          </button>
        </div>
      ))}
    </section>
  );
}
