// The one rule for what environment a process Switchboard starts gets: the Core's credentials never reach a command.
//
// Every backend builds the environment of what it starts (tool calls, background processes, panes, execute_code)
// through commandEnv. A local child inherits the Core's environment minus withheld names; a remote host or a
// container keeps its own environment and gets from the Core only what a person named in
// `approvals.env_passthrough` (plus Switchboard's own variables such as TERM). Withheld: the built-in credential
// patterns below, every installed plugin's declared `strip_env_keys` (a vendor's credentials leave every command,
// on every backend, not only its own targets'), every SWITCHBOARD_*, and any variable whose value carries a
// credential whatever its name (MY_THING=ghp_…, DB=postgres://u:pw@h/db). A passthrough name is kept even when it
// matches; SWITCHBOARD_TOKEN never is.
import { looksLikeSecretValue } from '../../../../shared/redact.js';
import type { ProviderContext } from '../provider.js';

/**
 * Names withheld by default, as shell-style globs matched case-insensitively: cloud and model-provider
 * credentials, tokens, passwords, key files, and the Core's own SWITCHBOARD_* settings.
 */
export const builtinWithheld: readonly string[] = [
  // API keys and tokens of any service (OPENAI_API_KEY, ANTHROPIC_API_KEY, GH_TOKEN, HF_TOKEN, NPM_TOKEN …).
  '*_API_KEY',
  'API_KEY',
  '*_APIKEY',
  '*_TOKEN',
  'TOKEN',
  '*_PAT',
  '*_DSN',
  '*_ACCESS_KEY',
  '*_ACCESS_KEY_ID',
  '*_SIGNING_KEY',
  '*_ENCRYPTION_KEY',
  '*_MASTER_KEY',
  '*_ACCOUNT_KEY',
  '*PRIVATE_KEY*',
  // Secrets, passwords, credentials by name (CLIENT_SECRET, PGPASSWORD, MYSQL_PWD, SSHPASS, DB_PASS …).
  '*SECRET*',
  '*PASSWORD*',
  '*PASSWD*',
  '*_PWD',
  '*_PASS',
  'SSHPASS',
  '*_CREDENTIALS',
  '*_CREDENTIAL',
  '*_CONNECTION_STRING',
  '*_WEBHOOK_URL',
  '*_AUTH',
  // Cloud providers: all of AWS (keys, session, profile and role), Google and Azure credential settings.
  'AWS_*',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_CREDENTIALS',
  'GOOGLE_CLOUD_KEYFILE_JSON',
  'CLOUDSDK_AUTH_*',
  'AZURE_CLIENT_SECRET',
  'AZURE_CLIENT_CERTIFICATE_*',
  'AZURE_STORAGE_KEY',
  'AZURE_STORAGE_*KEY',
  'AZURE_PASSWORD',
  // The Core's own settings and auth: a command has no business with the Core's profile or token.
  'SWITCHBOARD_*',
];

/** Never handed on, whatever the config says: the Core's own auth token. */
const neverForwarded = new Set(['SWITCHBOARD_TOKEN']);

/** Variable names a POSIX shell can export (and the only form env_passthrough accepts). */
export const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface EnvRules {
  /**
   * Globs (`*` for any run of characters) of names to withhold: the built-in list plus the provider's strip_env_keys.
   */
  readonly withhold: readonly string[];
  /** Names a person chose to keep (approvals.env_passthrough); they reach every target, the remote ones too. */
  readonly passthrough: readonly string[];
}

/**
 * The rules for one provider: its declared strip_env_keys and every installed plugin's on top of the built-in list,
 * and the person's passthrough.
 */
export function envRules(
  strip: readonly string[],
  ctx: Pick<ProviderContext, 'envPassthrough' | 'strippedEverywhere'>,
): EnvRules {
  return {
    withhold: [...builtinWithheld, ...strip, ...(ctx.strippedEverywhere?.() ?? [])],
    passthrough: ctx.envPassthrough?.() ?? [],
  };
}

const globCache = new Map<string, RegExp>();

function globRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    re = new RegExp(
      `^${glob
        .split('*')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      'i',
    );
    globCache.set(glob, re);
  }
  return re;
}

/** Verdicts of looksLikeSecretValue by value: the Core's environment is the same for every command it starts. */
const valueVerdicts = new Map<string, boolean>();
const VALUE_VERDICTS_KEPT = 2048;

function secretValue(value: string): boolean {
  let verdict = valueVerdicts.get(value);
  if (verdict === undefined) {
    verdict = looksLikeSecretValue(value);
    if (valueVerdicts.size >= VALUE_VERDICTS_KEPT) valueVerdicts.clear();
    valueVerdicts.set(value, verdict);
  }
  return verdict;
}

/** Whether a variable of this name (and, when given, this value) must not reach a command under these rules. */
export function isWithheld(name: string, rules: EnvRules, value?: string): boolean {
  if (neverForwarded.has(name)) return true;
  if (rules.passthrough.includes(name)) return false;
  return rules.withhold.some((glob) => globRegExp(glob).test(name)) || (value !== undefined && secretValue(value));
}

export interface CommandEnvOptions {
  /**
   * `all`: the child runs on this machine and inherits the Core's environment (minus what is withheld).
   * `passthrough`: the child runs elsewhere (SSH host, container) with an environment of its own; from the
   * Core it gets only the names a person passed through.
   */
  inherit: 'all' | 'passthrough';
  /** Switchboard's own additions (TERM, a job tag …); withheld names are dropped from these too. */
  extra?: Record<string, string> | undefined;
  /** The Core's environment; process.env unless a test says otherwise. */
  source?: NodeJS.ProcessEnv;
}

/** The environment Switchboard hands a process it starts; see the module comment for the rule. */
export function commandEnv(rules: EnvRules, opts: CommandEnvOptions): Record<string, string> {
  const source = opts.source ?? process.env;
  const env: Record<string, string> = {};
  if (opts.inherit === 'all') {
    for (const [k, v] of Object.entries(source)) if (v !== undefined) env[k] = v;
  } else {
    for (const k of rules.passthrough) {
      const v = source[k];
      if (v !== undefined) env[k] = v;
    }
  }
  Object.assign(env, opts.extra);
  for (const [k, v] of Object.entries(env)) if (isWithheld(k, rules, v)) delete env[k];
  return env;
}
