// The Add-target form's shortcuts to an SSH target: a "Quick connect" field read as `user@host:port` (or an `ssh …`
// line), and the hosts of ~/.ssh/config as a pick list; either fills the SSH fields below.
import { useEffect, useRef, useState } from 'react';
import type { MethodOutput } from '../../../shared/api.js';
import { looksLikeQuickConnect, parseQuickConnect, quickConnectName } from '../../../shared/quickConnect.js';
import { core } from '../../client/core.js';

type SshHost = MethodOutput<'targets.sshHosts'>[number];

export function QuickConnectFields(props: {
  taken: ReadonlySet<string>;
  onFill: (name: string, spec: Record<string, unknown>) => void;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const [hosts, setHosts] = useState<SshHost[]>([]);
  const [picked, setPicked] = useState('');

  useEffect(() => {
    let live = true;
    // No ~/.ssh/config (or one the Core cannot read) is no list, not an error: the field alone still works.
    core
      .call('targets.sshHosts', {})
      .then((list) => live && setHosts(list))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  /** The text last read: a spec that comes back for older text is not used. */
  const latest = useRef('');
  const read = (value: string, final: boolean): void => {
    setText(value);
    latest.current = value;
    if (!value.trim()) return setProblem(undefined);
    const r = parseQuickConnect(value);
    if (r.ok) {
      setProblem(undefined);
      setPicked('');
      // The SSH backend writes the spec (its field names are its own).
      core
        .call('targets.quickSpec', r.value)
        .then((spec) => latest.current === value && props.onFill(quickConnectName(r.value, props.taken), spec))
        .catch((err: unknown) => setProblem((err as Error).message));
    } else if (final || !looksLikeQuickConnect(value)) setProblem(r.problem);
    else setProblem(undefined);
  };

  const pick = (alias: string): void => {
    setPicked(alias);
    const h = hosts.find((x) => x.alias === alias);
    if (!h) return;
    setText('');
    setProblem(undefined);
    latest.current = '';
    props.onFill(quickConnectName({ host: h.alias }, props.taken), h.spec);
  };

  return (
    <div className="form__row">
      <label className={`field${problem ? ' field--invalid' : ''}`}>
        <span>Quick connect</span>
        <input
          name="quick_connect"
          value={text}
          onChange={(e) => read(e.target.value, false)}
          onBlur={(e) => read(e.target.value, true)}
          placeholder="user@host:port"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'quick-connect-problem' : undefined}
          title="Fills the SSH fields below: user@host, user@host:port, or ssh user@host -p 2222"
        />
        {problem && (
          <span className="field__problem" id="quick-connect-problem">
            {problem}
          </span>
        )}
      </label>
      {hosts.length > 0 && (
        <label className="field field--narrow">
          <span>From ~/.ssh/config</span>
          <select value={picked} onChange={(e) => pick(e.target.value)}>
            <option value="">pick a host…</option>
            {hosts.map((h) => (
              <option key={h.alias} value={h.alias}>
                {h.alias === h.host ? h.alias : `${h.alias} (${h.host})`}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
