// A pane's Target picker: choosing another target closes the pane's pty and opens one there.
import type { TargetInfo } from '../../shared/targets.js';
import { useTargets } from '../store/targets.js';
import { NO_SHELL, offersPane } from '../store/backends.js';

function optionLabel(t: TargetInfo): string {
  if (!offersPane(t.flags)) return `${t.name} — ${NO_SHELL}`;
  return t.state === 'active' ? t.name : `${t.name} (${t.state})`;
}

export function TargetPicker({ value, onChange }: { value: string; onChange(target: string): void }) {
  const list = useTargets((s) => s.list);
  const known = list.some((t) => t.name === value);
  return (
    <label className="picker">
      <span className="visually-hidden">Target</span>
      <select aria-label="Target" value={value} onChange={(e) => onChange(e.target.value)}>
        {!known && <option value={value}>{value} (removed)</option>}
        {list.map((t) => (
          <option
            key={t.name}
            value={t.name}
            disabled={t.name !== value && (t.state === 'draining' || !offersPane(t.flags))}
          >
            {optionLabel(t)}
          </option>
        ))}
      </select>
    </label>
  );
}
