// Asks before an action that would end something (a running program, a target a provider owns) or give power (enabling
// a plugin); Cancel has the focus.
import type { ConfirmRequest } from '../../store/dialogs.js';
import { useDialogs } from '../../store/dialogs.js';
import { Modal } from './Modal.js';

export function ConfirmDialog({ req }: { req: ConfirmRequest }) {
  const close = (): void => useDialogs.getState().closeConfirm();
  return (
    <Modal title={req.title} onCancel={close} width={500} describedBy="confirm-message">
      <p className="form__note" id="confirm-message">
        {req.message}
      </p>
      <ul className="confirm__items" aria-label={req.itemsLabel}>
        {req.items.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a request's lines are fixed while its dialog is open
          <li key={i} className={req.itemsAreSentences ? 'confirm__sentence' : 'mono'}>
            {line}
          </li>
        ))}
      </ul>
      <div className="modal__actions">
        <button type="button" className="button" data-autofocus onClick={close}>
          Cancel
        </button>
        <button
          type="button"
          className="button button--danger"
          onClick={() => {
            close();
            req.onConfirm();
          }}
        >
          {req.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
