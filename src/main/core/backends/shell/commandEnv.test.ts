import { describe, expect, it } from 'vitest';
import { builtinWithheld, commandEnv, envRules, isWithheld, type EnvRules } from './commandEnv.js';

const rules = (strip: string[] = [], passthrough: string[] = []): EnvRules => ({
  withhold: [...builtinWithheld, ...strip],
  passthrough,
});

describe('isWithheld', () => {
  const withheld = [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'API_KEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'HF_TOKEN',
    'NPM_TOKEN',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'CLIENT_SECRET',
    'JWT_SECRET_KEY',
    'SECRET_KEY_BASE',
    'PGPASSWORD',
    'MYSQL_PWD',
    'DB_PASSWORD',
    'REDIS_PASS',
    'SSHPASS',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'AZURE_CLIENT_SECRET',
    'AZURE_CLIENT_CERTIFICATE_PATH',
    'AZURE_STORAGE_KEY',
    'AZURE_STORAGE_CONNECTION_STRING',
    'SLACK_WEBHOOK_URL',
    'SSH_PRIVATE_KEY',
    'SWITCHBOARD_HOME',
    'SWITCHBOARD_TOKEN',
    'SWITCHBOARD_X',
    'github_token',
    'Fake_Api_Key',
  ];
  const kept = [
    'PATH',
    'HOME',
    'LANG',
    'LC_ALL',
    'TERM',
    'USER',
    'SHELL',
    'PWD',
    'OLDPWD',
    'TZ',
    'EDITOR',
    'SSH_AUTH_SOCK',
    'GIT_ASKPASS',
    'XDG_RUNTIME_DIR',
    'NODE_OPTIONS',
    'VIRTUAL_ENV',
    'DOCKER_HOST',
    'KUBECONFIG',
    'AZURE_SUBSCRIPTION_ID',
    'GOOGLE_CLOUD_PROJECT',
    'TOKENIZERS_PARALLELISM',
    'PYTHONPATH',
  ];
  it.each(withheld)('withholds %s', (name) => expect(isWithheld(name, rules())).toBe(true));
  it.each(kept)('keeps %s', (name) => expect(isWithheld(name, rules())).toBe(false));
  it("a provider's strip_env_keys are withheld too", () =>
    expect(isWithheld('PLUGIN_SESSION', rules(['PLUGIN_SESSION']))).toBe(true));
  it("a passthrough name is kept, except the Core's own token", () => {
    expect(isWithheld('OPENAI_API_KEY', rules([], ['OPENAI_API_KEY']))).toBe(false);
    expect(isWithheld('SWITCHBOARD_TOKEN', rules([], ['SWITCHBOARD_TOKEN']))).toBe(true);
  });
});

describe('commandEnv', () => {
  const source = {
    PATH: '/usr/bin',
    HOME: '/home/a',
    FAKE_API_KEY: 'k1',
    AWS_SECRET_ACCESS_KEY: 's1',
    MY_TOKEN: 't1',
    LANG: 'C.UTF-8',
  };
  it("a local child inherits the Core's environment minus withheld names", () => {
    expect(commandEnv(rules(), { inherit: 'all', source })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/a',
      LANG: 'C.UTF-8',
    });
  });
  it("a remote child gets only passed-through names from the Core, plus Switchboard's additions", () => {
    expect(commandEnv(rules([], ['MY_TOKEN']), { inherit: 'passthrough', source, extra: { TERM: 'xterm' } })).toEqual({
      MY_TOKEN: 't1',
      TERM: 'xterm',
    });
    expect(commandEnv(rules(), { inherit: 'passthrough', source })).toEqual({});
  });
  it('additions are cleared by the same rules', () => {
    expect(commandEnv(rules(), { inherit: 'passthrough', source, extra: { GITHUB_TOKEN: 'x', SB_A: '1' } })).toEqual({
      SB_A: '1',
    });
  });
  it('reads the passthrough list at every call (a config edit applies to the next process)', () => {
    let names: string[] = [];
    const ctx = { envPassthrough: () => names };
    expect(commandEnv(envRules([], ctx), { inherit: 'all', source })).not.toHaveProperty('FAKE_API_KEY');
    names = ['FAKE_API_KEY'];
    expect(commandEnv(envRules([], ctx), { inherit: 'all', source })).toHaveProperty('FAKE_API_KEY', 'k1');
  });
});

describe('the scrub judges values too', () => {
  const source = {
    PATH: '/usr/local/bin:/usr/bin',
    HOME: '/home/a',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    EDITOR: 'vim',
    NODE_ENV: 'production',
    SITE_URL: 'https://example.com/app',
    REPO: 'git@github.com:me/x.git',
    GH_PAT: 'pat-1',
    SENTRY_DSN: 'dsn-1',
    MY_THING: 'ghp_abcdefghijklmnop1234',
    DB: 'postgres://u:pw@h/db',
    DATABASE_URL: 'postgres://admin:s3cret@db/app',
    SESSION: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdef',
    KEYS: 'AKIAABCDEFGHIJKLMNOP',
    CHAT: 'xoxb-1234567890-abcdefgh',
    GL: 'glpat-abcdefghij0123456789',
    AI: 'sk-proj-abcdefghijklmnop',
    DEPLOY_KEY: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----',
  };
  it('a variable whose value carries a credential is withheld whatever its name; everyday ones are kept', () => {
    expect(commandEnv(rules(), { inherit: 'all', source })).toEqual({
      PATH: source.PATH,
      HOME: source.HOME,
      LANG: source.LANG,
      TERM: source.TERM,
      EDITOR: 'vim',
      NODE_ENV: 'production',
      SITE_URL: source.SITE_URL,
      REPO: source.REPO,
    });
  });
  it('a passthrough name is kept whatever its value', () => {
    expect(commandEnv(rules([], ['DB']), { inherit: 'passthrough', source })).toEqual({ DB: source.DB });
  });
  it("every loaded plugin's strip_env_keys join the rules of every provider", () => {
    const r = envRules([], { strippedEverywhere: () => ['ACMEBOX_*'] });
    expect(commandEnv(r, { inherit: 'all', source: { ACMEBOX_REGION: 'eu', PATH: '/bin' } })).toEqual({ PATH: '/bin' });
  });
});
