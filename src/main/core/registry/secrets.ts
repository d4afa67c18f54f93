// Finds secrets in a target spec (key material, passwords, tokens) so the registry can refuse to store them.

/** Key names that say "the value is a secret". Matched per word: `api_token`, `ssh_password`, `clientSecret`. */
const secretKeyWords = new RegExp(
  String.raw`(^|[_\-.])(passwd|password|passphrase|secret|token|apikey|api_key|private_key|privatekey|privkey|` +
    String.raw`credential|credentials)($|[_\-.])`,
  'i',
);

/** Values that are secrets whatever key holds them. */
const secretValues: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/, 'a private key'],
  [/PuTTY-User-Key-File-\d/, 'a PuTTY private key'],
  [/b3BlbnNzaC1rZXktdjE/, 'an OpenSSH private key'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/, 'a GitHub token'],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}/, 'a GitHub token'],
  [/\bglpat-[A-Za-z0-9_-]{20,}/, 'a GitLab token'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\bsk-[A-Za-z0-9_-]{20,}/, 'an API key'],
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/, 'an AWS access key'],
  [/\bey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, 'a JSON web token'],
  [/:\/\/[^/\s:@]+:[^/\s@]+@/, 'a password in a URL'],
];

function camelWords(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
}

/**
 * Where the first secret in a spec is and what it looks like, e.g. `ssh_password (a password field)`;
 * undefined when there is none. Never returns the value itself. `references` are the keys a backend declares as
 * naming where a secret lives (a key path, an environment variable): their names may sound secret, their values
 * are still checked.
 */
export function findSecret(value: unknown, references: ReadonlySet<string> = new Set(), path = ''): string | undefined {
  if (typeof value === 'string') {
    for (const [re, what] of secretValues) if (re.test(value)) return `${path || 'a value'} (${what})`;
    return undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findSecret(value[i], references, `${path}[${i}]`);
      if (hit) return hit;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const where = path ? `${path}.${k}` : k;
      if (!references.has(k) && secretKeyWords.test(camelWords(k)) && typeof v === 'string' && v !== '') {
        return `${where} (a ${/token/i.test(k) ? 'token' : /key|cred/i.test(k) ? 'credential' : 'password'} field)`;
      }
      const hit = findSecret(v, references, where);
      if (hit) return hit;
    }
  }
  return undefined;
}
