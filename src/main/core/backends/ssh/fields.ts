// The SSH backend's spec, declared once: the fields the form, `targets register` flags and the checks read.
import type { z } from 'zod';
import { declareSpec } from '../../../../shared/specFields.js';

export const sshSpec = declareSpec({
  backend: 'ssh',
  fields: [
    {
      key: 'ssh_host',
      type: 'string',
      label: 'Host',
      help: 'host name or address (a Host alias of ~/.ssh/config works too)',
      flag: '--host',
      required: true,
      placeholder: 'compute.example.com',
    },
    {
      key: 'ssh_port',
      type: 'number',
      label: 'Port',
      help: 'SSH port',
      flag: '--port',
      default: 22,
      integer: true,
      min: 1,
      max: 65_535,
      placeholder: '22',
    },
    {
      key: 'ssh_user',
      type: 'string',
      label: 'User',
      help: 'remote user (default: ~/.ssh/config, then your own name)',
      flag: '--user',
      placeholder: 'agent',
    },
    {
      key: 'ssh_key',
      type: 'path',
      label: 'Key file',
      help: 'the path of a private key file (never the key itself)',
      flag: '--key',
      secret_ref: true,
      placeholder: '~/.ssh/id_ed25519',
    },
    {
      key: 'ssh_password_env',
      type: 'secret_ref',
      label: 'Password variable',
      help: 'the name of an environment variable that holds the password (never the password)',
      private: true,
      advanced: true,
      placeholder: 'COMPUTE_PASSWORD',
    },
    {
      key: 'ssh_agent',
      type: 'boolean',
      label: 'Use ssh-agent',
      help: 'authenticate with the keys of $SSH_AUTH_SOCK',
      advanced: true,
    },
    {
      key: 'ssh_jump',
      type: 'string',
      label: 'Jump through',
      help: "another SSH target's name to hop through (ProxyJump)",
      advanced: true,
      placeholder: 'bastion',
    },
    {
      key: 'sandbox',
      type: 'sandbox',
      label: 'Sandbox',
      advanced: true,
      default: 'workspace',
      help:
        'where agent work runs on the host: off, or { writable: [paths], network: true|false, deny_write: [paths] } ' +
        '(default: in bubblewrap on the host where it has it, writes only in the cwd tree; panes are never sandboxed)',
      placeholder: '{ network: false }',
    },
    {
      key: 'shell',
      type: 'command',
      label: 'Shell',
      advanced: true,
      help:
        "the program and arguments a pane runs on the host (zsh -l, fish; default: the user's login shell). " +
        "The agent's commands still run in sh and bash there",
      placeholder: 'zsh -l',
    },
  ],
  describe: (s) => `${s.ssh_user ? `${s.ssh_user}@` : ''}${s.ssh_host}${s.ssh_port ? `:${s.ssh_port}` : ''}`,
});

export const SshSpec = sshSpec.specSchema;
export type SshSpec = z.infer<typeof SshSpec>;

/** The host an SSH target's commands run on, as its spec names it (doctor checks whether it is this machine). */
export function sshRemoteHost(spec: Readonly<Record<string, unknown>>): string | undefined {
  return typeof spec.ssh_host === 'string' ? spec.ssh_host : undefined;
}
