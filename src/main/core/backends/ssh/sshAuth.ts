// How a hop logs in: the key files, agent and password ssh2 is offered, and what identifies them for the pool.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { SwitchboardError } from '../../../../shared/errors.js';
import { hopLabel, type SshHop } from './sshRoute.js';
import { loadSsh2 } from './ssh2Lib.js';

/** A key file's identity on disk (a few local stats when a lease is taken); `-` when it cannot be read. */
export function keyFileIdentity(path: string): string {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    // no key file: its absence is the identity
    return '-';
  }
}

export type AuthMethod =
  | { type: 'publickey'; username: string; key: Buffer }
  | { type: 'agent'; username: string; agent: string }
  | { type: 'password'; username: string; password: string };

/** The login methods to try, in ssh's order; names of what was tried (never secrets) go into errors. */
export async function authMethods(hop: SshHop): Promise<{ methods: AuthMethod[]; tried: string[] }> {
  const methods: AuthMethod[] = [];
  const tried: string[] = [];
  for (const [i, file] of hop.keyFiles.entries()) {
    const mustWork = hop.explicitKey && i === 0;
    let key: Buffer;
    try {
      key = await readFile(file);
    } catch {
      if (mustWork)
        throw new SwitchboardError(
          'bad_config',
          `cannot read ssh_key ${file} of target "${hop.target}"`,
          'ssh_key is the path of a private key file readable by Switchboard',
        );
      continue;
    }
    const parsed = loadSsh2().utils.parseKey(key);
    if (parsed instanceof Error) {
      if (mustWork) {
        const why = /encrypted|passphrase/i.test(parsed.message)
          ? 'is protected by a passphrase'
          : 'is not a private key ssh2 can read';
        throw new SwitchboardError(
          'bad_config',
          `ssh_key ${file} of target "${hop.target}" ${why}`,
          'use a passphrase-less key, or load it into ssh-agent and set ssh_agent: true',
        );
      }
      continue;
    }
    methods.push({ type: 'publickey', username: hop.user, key });
    tried.push(`key ${file}`);
  }
  const agent = process.env.SSH_AUTH_SOCK;
  if (hop.agent === true && !agent) {
    throw new SwitchboardError(
      'bad_config',
      `target "${hop.target}" has ssh_agent: true but SSH_AUTH_SOCK is not set`,
      'start ssh-agent (and ssh-add your key) before Switchboard',
    );
  }
  if (hop.agent !== false && agent) {
    methods.push({ type: 'agent', username: hop.user, agent });
    tried.push('ssh-agent');
  }
  if (hop.passwordEnv !== undefined) {
    const password = process.env[hop.passwordEnv];
    if (password === undefined) {
      throw new SwitchboardError(
        'bad_config',
        `ssh_password_env of target "${hop.target}" names ${hop.passwordEnv}, which is not set`,
        `export ${hop.passwordEnv} before starting Switchboard`,
      );
    }
    methods.push({ type: 'password', username: hop.user, password });
    tried.push(`password from $${hop.passwordEnv}`);
  }
  if (methods.length === 0) {
    throw new SwitchboardError(
      'bad_config',
      `no way to log in to ${hopLabel(hop)} (target "${hop.target}"): no readable key, agent or password`,
      'set ssh_key, ssh_agent or ssh_password_env',
    );
  }
  return { methods, tried };
}
