// The one redactor: every surface that shows a command, an argument, an error or a result (audit.jsonl, Activity,
// approvals.list, the CLI's JSON, the approval dialog before the person asks to see it) passes the text through
// redact(). Pure, so the renderer masks with the same rules the Core logs with. looksLikeSecretValue judges a value
// alone (no name to go by): the environment scrub and the exports kept in memory use it.

/**
 * A value as a shell word: up to the next blank or shell operator outside quotes, its quoted parts whole (`'it'\''s'`,
 * `"a \"b\""`, `pre'fix'"post"`), a backslash keeping the character after it.
 */
const V = String.raw`(?:"(?:[^"\\]|\\[\s\S])*"|'[^']*'|\\[\s\S]|[^\s"'|;&\\])+`;
/** The rest of one simple command (stops at a pipe, list operator or newline). */
const SAME_COMMAND = String.raw`[^|;&\n]*?`;
/** Key words that mark a credential in a name (NAME=, "name":, --name). */
const SECRET_WORD =
  `(?:api[_-]?key|apikey|token(?!s|iz|_?(?:type|count|limit|usage))|secret|password|passwd|passphrase|pwd|` +
  `credentials?|private[_-]?key|access[_-]?key)`;

type Replacer = (match: string, ...groups: unknown[]) => string;

/** Programs whose -u takes user:group or uid:gid, not a user and a password. */
const USER_GROUP_PROGRAMS = new RegExp(
  String.raw`(?:^|[\s;&|(])(?:sudo\s+)?(?:docker|podman|nerdctl|ctr|chpst|chown|chgrp|runuser|setpriv|install|` +
    String.raw`ps|pgrep|pkill|top|crontab|su|sudo|lxc-\w+|systemd-run)\b[^|;&\n]*$`,
);

/**
 * `-u user:password`: the password goes, unless the program takes user:group there or the part after `:` is a group id.
 */
function userPassword(match: string, ...rest: unknown[]): string {
  const [flag, user, secret, offset, whole] = rest as [string, string, string, number, string];
  if (/^\d+$/.test(secret) || USER_GROUP_PROGRAMS.test(whole.slice(0, offset))) return match;
  return `${flag}${user}[redacted]`;
}

/**
 * Credential shapes, applied in this order: the specific ones first, so a generic rule cannot half-match them.
 * Each keeps what says what the secret was for (the flag, the header, the user name) and drops only the secret.
 */
const redactions: Array<[RegExp, string | Replacer]> = [
  [/(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '$1 [redacted] $2'],
  // Authorization and cookie headers, whatever the scheme; X-Api-Key / X-Auth-Token style headers.
  [
    new RegExp(
      String.raw`\b((?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|` +
        String.raw`AWS4-HMAC-SHA256|ApiKey|Key)\s+)?)(?!\[redacted\])[^\s"']+`,
      'gi',
    ),
    '$1[redacted]',
  ],
  [/\b((?:Set-)?Cookie\s*:\s*)[^"'\n]+/gi, '$1[redacted]'],
  [/\b(X-[\w-]*(?:api-?key|token|auth|secret)[\w-]*\s*:\s*)[^\s"']+/gi, '$1[redacted]'],
  [/\b(Bearer\s+)(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/g, '$1[redacted]'],
  // JSON web tokens wherever they stand.
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '[redacted]'],
  // Credentials in URLs: scheme://user:password@host (an empty user too).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s@/]+@/gi, '$1[redacted]@'],
  // Programs that take a password in a short flag: mysql -pSECRET (attached only: `-p` alone prompts), sshpass -p,
  // docker login -p, redis-cli -a, ldap tools' -w, openssl -passin pass:…, curl -u user:password, smbclient -U user%pw.
  [
    new RegExp(
      String.raw`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|` +
        String.raw`mariadb[\w-]*)\b${SAME_COMMAND}\s-p)(?!\[redacted\])${V}`,
      'g',
    ),
    '$1[redacted]',
  ],
  [new RegExp(String.raw`(\bsshpass\s+(?:-[a-oq-zA-Z]\S*\s+)*-p\s*)${V}`, 'g'), '$1[redacted]'],
  [
    new RegExp(
      String.raw`(\b(?:docker|podman|nerdctl|buildah|skopeo|helm\s+registry|oras)\s+login\b${SAME_COMMAND}\s-p(?:\s+|` +
        `=)?)${V}`,
      'g',
    ),
    '$1[redacted]',
  ],
  [new RegExp(String.raw`(\bredis-cli\b${SAME_COMMAND}\s-a\s+)${V}`, 'g'), '$1[redacted]'],
  // mongo tools' -p, sqlcmd/bcp -P, zip/unzip -P, 7z -pSECRET, keytool/jarsigner -storepass / -keypass.
  [
    new RegExp(
      String.raw`(\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|` +
        String.raw`mongotop)\b${SAME_COMMAND}\s(?:-p|--password)(?:\s+|=))(?!\[redacted\])${V}`,
      'g',
    ),
    '$1[redacted]',
  ],
  [
    new RegExp(String.raw`(\b(?:sqlcmd|bcp|zip|unzip|zipcloak)\b${SAME_COMMAND}\s-P\s*)(?!\[redacted\])${V}`, 'g'),
    '$1[redacted]',
  ],
  [new RegExp(String.raw`(\b7za?\b${SAME_COMMAND}\s-p)(?!\[redacted\])${V}`, 'g'), '$1[redacted]'],
  [
    new RegExp(
      String.raw`(\s-(?:store|key|srcstore|deststore|srckey|destkey)?pass(?:word)?\s+)(?!\[redacted\])${V}`,
      'g',
    ),
    '$1[redacted]',
  ],
  [new RegExp(String.raw`(\bldap\w+\b${SAME_COMMAND}\s-w\s+)${V}`, 'g'), '$1[redacted]'],
  [/(-pass(?:in|out)?\s+pass:)[^\s"']+/g, '$1[redacted]'],
  // user:password in quotes, blanks and all (`-u 'admin:pa ss'`), before the rules that stop at a blank.
  [
    /(?<![\w-])(-u|--user|--proxy-user|--auth)((?:\s+|=)["'][^\s:"'@=]+:)(?!\[redacted\])([^"']+)(?=["'])/g,
    userPassword,
  ],
  [
    new RegExp(
      String.raw`(\b(?:curl|wget|https?|xhs?)\b${SAME_COMMAND}\s` +
        String.raw`(?:-[a-zA-Z]*u|--user|-U|--proxy-user|-a|--auth)(?:\s+|=)?["']?[^\s:"']*:)[^\s"']+`,
      'g',
    ),
    '$1[redacted]',
  ],
  // Any other program given user:password in -u / --user / --auth, except the ones whose -u takes user:group (docker
  // run -u app:app); a run of digits after the colon is a group id, not a secret.
  [
    /(?<![\w-])(-u|--user|--proxy-user|--auth)((?:\s+|=)["']?[^\s:"'@=]+:)(?!\[redacted\]|\/\/)([^\s"']+)/g,
    userPassword,
  ],
  [
    new RegExp(String.raw`(\bsmbclient\b${SAME_COMMAND}\s(?:-U|--user)(?:\s+|=)?["']?[^\s%"']*%)[^\s"']+`, 'g'),
    '$1[redacted]',
  ],
  // Python's `auth=("user", "password")`; a password echoed into a `--password-stdin` login.
  [/(\bauth\s*=\s*[([]\s*(["'])[^"']*\2\s*,\s*)(["'])(?!\[redacted\])[^"']*\3/g, '$1"[redacted]"'],
  [
    new RegExp(
      String.raw`(\b(?:echo|printf)\s+(?:-n\s+)?)(?!\[redacted\])${V}(?=\s*\|${SAME_COMMAND}--password-stdin)`,
      'g',
    ),
    '$1[redacted]',
  ],
  // htpasswd -b takes the password as its last argument.
  [
    /(\bhtpasswd\b(?=[^|;&\n]*\s-[a-zA-Z]*b)[^|;&\n]*\s)(?:"[^"]*"|'[^']*'|[^\s"'|;&]+)(?=\s*(?:$|[|;&\n]))/g,
    '$1[redacted]',
  ],
  // AWS: `aws configure set aws_secret_access_key X`, a secret key after its name, access key ids.
  [
    /(\baws\s+configure\s+set\s+(?:[\w-]+\.)*aws_(?:secret_access_key|session_token|access_key_id)\s+)\S+/gi,
    '$1[redacted]',
  ],
  [/(aws_?secret_?access_?key["']?\s*[=:]?\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi, '$1[redacted]'],
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, '[redacted]'],
  // Flags that take a secret: --password X, --token=X, --api-key X, --db-password X, --http-password=X …
  [
    new RegExp(
      String.raw`(?<![\w-])(--?(?:[a-z]+-)*(?:password|passwd|pass|` +
        `passphrase|token|secret|api[-_]?key|auth[-_]?token|` +
        String.raw`access[-_]?key|client[-_]?secret)(?:=|\s+))(?!\[redacted\])${V}`,
      'gi',
    ),
    '$1[redacted]',
  ],
  // JSON and similar: "password": "x", 'api_key': 'x', \"token\":\"x\" inside a quoted shell word.
  [
    new RegExp(
      String.raw`((\\?["'])[\w-]*${SECRET_WORD}[\w-]*\2\s*:\s*)(?:\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\]|\\.)*"|'[^']*'|` +
        String.raw`[^\s,}\]]+)`,
      'gi',
    ),
    '$1"[redacted]"',
  ],
  // NAME=value for secret-looking names, prefixed ones too (API_TOKEN=, DB_PASSWORD:).
  [
    new RegExp(String.raw`\b([A-Za-z0-9_]*${SECRET_WORD}[A-Za-z0-9_]*\s*[=:]\s*)(?!\[redacted\])${V}`, 'gi'),
    '$1[redacted]',
  ],
  // Docker's config.json `"auth": "base64"`, kubeconfig's `client-key-data:`, Azure's `AccountKey=` /
  // `SharedAccessKey=`.
  [/((["'])auth\2\s*:\s*)"[^"]*"/g, '$1"[redacted]"'],
  [/\b([\w-]*key-data\s*:\s*)(?!\[redacted\])\S+/gi, '$1[redacted]'],
  [/\b((?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*)(?!\[redacted\])[^;"'\s]+/g, '$1[redacted]'],
  // Webhook URLs that are their own credential (Slack, Discord): the path is the secret.
  [/(\bhttps:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[^\s"']+/g, '$1[redacted]'],
  [/(\bhttps:\/\/(?:\w+\.)?discord(?:app)?\.com\/api\/webhooks\/)[^\s"']+/g, '$1[redacted]'],
  // Names that mark a credential by their ending (GH_PAT=, SENTRY_DSN=), and netrc's `login u password p`.
  [new RegExp(String.raw`\b([A-Za-z0-9_]*_(?:PAT|DSN)\s*[=:]\s*)(?!\[redacted\])${V}`, 'gi'), '$1[redacted]'],
  [/(\blogin\s+\S+\s+password\s+)(?!\[redacted\])\S+/gi, '$1[redacted]'],
  // Well-known token formats wherever they stand.
  [/\b(gh[pousr]_|github_pat_|sk-|sk_live_|rk_live_|xox[baprs]-|glpat-|hf_|npm_|AIza)[A-Za-z0-9_-]{8,}/g, '[redacted]'],
  // HashiCorp Vault tokens.
  [/\bhv[sb]\.[A-Za-z0-9_-]{20,}/g, '[redacted]'],
];

/**
 * The most of a text an audit line keeps. Longer text (a huge command, an error quoting one) is cut before it is
 * redacted: audit lines and Activity show a summary anyway, and the rules' time stays bounded whatever comes in.
 */
export const MAX_REDACTED_CHARS = 16 * 1024;

/**
 * Replace anything that looks like a credential with [redacted]. `whole`: never cut (the approval dialog masks a
 * command the person may reveal in full; it is redacted once per pending approval, not per line logged).
 */
export function redact(text: string, opts: { whole?: boolean } = {}): string {
  let out = !opts.whole && text.length > MAX_REDACTED_CHARS ? `${text.slice(0, MAX_REDACTED_CHARS)}… [cut]` : text;
  for (const [pattern, replacement] of redactions)
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  return out;
}

/** Token formats a value is made of alone (its whole self): the providers' prefixes, AWS key ids, JWTs. */
const SECRET_VALUE_SHAPES: readonly RegExp[] = [
  /^(?:gh[pousr]_|github_pat_|sk-|sk_live_|rk_live_|xox[a-z]-|glpat-|hf_|npm_|AIza)[A-Za-z0-9_-]{8,}$/,
  /^(?:AKIA|ASIA)[A-Z0-9]{16}$/,
  /^eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*$/,
];

const TOKEN_CHAR = '[A-Za-z0-9_-]';
/**
 * The same shapes as a POSIX extended regular expression for awk (mawk has no `{n}` and no `\\b`), matched anywhere in
 * a variable's `export -p` record: the exports a shell keeps between calls are judged by it (backends/shell/shellWrap).
 */
export const SECRET_VALUE_ERE = [
  `(^|[^A-Za-z0-9])(gh[pousr]_|github_pat_|sk-|sk_live_|rk_live_|xox[a-z]-|glpat-|hf_|npm_|` +
    `AIza)${TOKEN_CHAR.repeat(8)}`,
  `(^|[^A-Za-z0-9])(AKIA|ASIA)${'[A-Z0-9]'.repeat(16)}`,
  `(^|[^A-Za-z0-9])eyJ${TOKEN_CHAR}${TOKEN_CHAR}${TOKEN_CHAR}${TOKEN_CHAR}+[.]` +
    `${TOKEN_CHAR}${TOKEN_CHAR}${TOKEN_CHAR}${TOKEN_CHAR}+[.]`,
  '[A-Za-z][A-Za-z0-9+.-]*://[^ /:@]*:[^ @/]+@',
  'PRIVATE KEY-----',
].join('|');

/**
 * Whether a value carries a credential whatever its name: a URL with a password in it, a known token format, a
 * private key block (or anything the redactor would change, written as a word of its own: `Bearer …`).
 */
export function looksLikeSecretValue(value: string): boolean {
  const v = value.trim();
  if (!v) return false;
  if (SECRET_VALUE_SHAPES.some((re) => re.test(v))) return true;
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v)) return true;
  if (/\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s@/]+@/i.test(v)) return true;
  if (v.length > MAX_REDACTED_CHARS) return false;
  return redact(v) !== v;
}
