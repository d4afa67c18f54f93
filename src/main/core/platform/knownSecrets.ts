// Secret values the Core knows by value (the exports it keeps in memory only, shell/secretExports.ts): masked wherever
// the Core summarizes a call for Activity and audit.jsonl, since a command that prints one (`echo "$MY_TOKEN"`) shows
// a bare value no pattern of the redactor could tell from any other word.
const known = new Set<string>();
/** The most values kept: the oldest goes first. */
const KNOWN_KEPT = 512;
/** Shorter values are not masked: `1`, `yes` or `dev` would be masked in every output. */
const MIN_MASKED_CHARS = 6;

/** Remember a secret's value for masking; for as long as the Core runs (an unset secret still was one). */
export function rememberSecret(value: string): void {
  if (value.length < MIN_MASKED_CHARS || known.has(value)) return;
  known.add(value);
  if (known.size > KNOWN_KEPT) known.delete(known.values().next().value!);
}

/** The text with every known secret value replaced by [redacted]. */
export function maskKnownSecrets(text: string): string {
  let out = text;
  for (const value of known) if (out.includes(value)) out = out.split(value).join('[redacted]');
  return out;
}
