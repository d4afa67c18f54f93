// What the target table needs from the runtime registry: its records, its problems, and change detection.
import type { TargetSpec } from '../../../shared/targets.js';

export interface RuntimeRecord {
  name: string;
  spec: TargetSpec;
  generation: string;
  state: 'active' | 'draining';
  provider: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

export interface RuntimeSource {
  /** Current records; cheap to call (cached by file signature). */
  list(): RuntimeRecord[];
  /** Records that could not be used and why (bad file, bad record): shown by doctor, UI, CLI. */
  problems(): string[];
  /** Re-read if the file changed; true when records changed. */
  refresh(): boolean;
  onChange(listener: () => void): () => void;
  close(): void;
}

/** A registry with nothing in it, for cores that run without a runtime registry. */
export const emptyRuntimeSource: RuntimeSource = {
  list: () => [],
  problems: () => [],
  refresh: () => false,
  onChange: () => () => undefined,
  close: () => undefined,
};
