// What keeps a runtime identity's live state: explicit holds taken by a call in flight, an open pane or held work.
/**
 * Counted holds per runtime identity. Whoever starts work on an identity takes a hold and gives it back when the
 * work ends (the dispatcher around a call, Panes for a shell's life); a retired identity is released only when
 * it has none. Releasing is idempotent, so a hold given back twice cannot free another's.
 */
export class IdentityHolds {
  private readonly counts = new Map<string, number>();
  private readonly listeners = new Set<(identity: string) => void>();

  acquire(identity: string): () => void {
    this.counts.set(identity, (this.counts.get(identity) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.counts.get(identity) ?? 1) - 1;
      if (n <= 0) this.counts.delete(identity);
      else this.counts.set(identity, n);
      for (const l of this.listeners) l(identity);
    };
  }

  held(identity: string): boolean {
    return (this.counts.get(identity) ?? 0) > 0;
  }

  identities(): Set<string> {
    return new Set(this.counts.keys());
  }

  /** Called after any hold is given back (a retired identity may now be free). */
  onRelease(listener: (identity: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
