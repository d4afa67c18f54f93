// "Trust host key?": an SSH target met a host key nobody has trusted yet; the call waits until the person decides.
import type { PendingApproval } from '../../../shared/approvals.js';
import { call } from '../../client/core.js';
import { useNow } from '../useNow.js';
import { Modal } from './Modal.js';

export function HostKeyDialog({ approval }: { approval: PendingApproval }) {
  const now = useNow(true);
  const key = approval.host_key!;
  const left = Math.max(0, Math.round((Date.parse(approval.expires_at) - now) / 1000));
  const decide = (decision: 'approve' | 'deny', scope?: 'once' | 'always'): void => {
    void call('approvals.decide', { id: approval.id, decision, ...(scope ? { scope } : {}) });
  };
  const where = key.port === 22 ? key.host : `${key.host}:${key.port}`;
  return (
    <Modal
      title="Trust host key?"
      unasked
      onCancel={() => decide('deny')}
      width={520}
      describedBy="hostkey-lead hostkey-fingerprint"
    >
      <p className="form__note" id="hostkey-lead">
        Target <strong>{approval.execution_target}</strong> connects to <strong>{where}</strong>, whose host key is not
        in ~/.ssh/known_hosts or Switchboard's store. Compare the fingerprint with the one the host's owner gives you
        before you trust it.
      </p>
      <dl className="hostkey">
        <dt>Host</dt>
        <dd>{where}</dd>
        <dt>Key type</dt>
        <dd>{key.key_type}</dd>
        <dt>Fingerprint</dt>
        <dd className="hostkey__fingerprint" id="hostkey-fingerprint">
          {key.fingerprint}
        </dd>
      </dl>
      <p className="form__note">The connection waits; with no answer it is rejected in {left}s.</p>
      <div className="modal__actions">
        <button type="button" className="button" data-autofocus onClick={() => decide('deny')}>
          Reject
        </button>
        <button type="button" className="button" onClick={() => decide('approve', 'once')}>
          Trust once
        </button>
        <button type="button" className="button button--primary" onClick={() => decide('approve', 'always')}>
          Trust and remember
        </button>
      </div>
    </Modal>
  );
}
