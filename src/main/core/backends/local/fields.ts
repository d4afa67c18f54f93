// The local backend's spec, declared once: its OS sandbox setting and the shell its panes start (cwd and timeout are
// common to every backend).
import type { z } from 'zod';
import { declareSpec } from '../../../../shared/specFields.js';

export const localSpec = declareSpec({
  backend: 'local',
  fields: [
    {
      key: 'sandbox',
      type: 'sandbox',
      label: 'Sandbox',
      flag: '--sandbox',
      advanced: true,
      default: 'workspace',
      help:
        'where agent work runs: off, or { writable: [paths], network: true|false, allow_local_ports: [ports], ' +
        'allow_hosts: [hosts], deny_write: [paths] } (default: ' +
        'sandboxed, writes only in the cwd tree)',
      // Empty is the default, a sandbox: the placeholder says so (it said "off", which reads as the value).
      placeholder: 'empty = sandboxed',
    },
    {
      key: 'shell',
      type: 'command',
      label: 'Shell',
      flag: '--shell',
      advanced: true,
      help:
        'the program and arguments a pane starts (zsh -l, fish, bash --login; default: $SHELL). ' +
        "The agent's commands still run in bash (sh without it): the Core speaks bash to them",
      placeholder: 'zsh -l',
    },
    {
      key: 'shell_login',
      type: 'boolean',
      label: 'Login shell',
      advanced: true,
      default: false,
      help: "start the pane's shell as a login shell (adds -l): it reads the login profile (~/.profile, ~/.zprofile)",
    },
    {
      key: 'shell_env',
      type: 'map',
      label: 'Shell environment',
      advanced: true,
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      pattern_message: 'a variable name is letters, digits and _, and does not start with a digit',
      help:
        "NAME=value variables a pane's shell starts with, one per line (panes only, not the agent's commands); " +
        'values that look like secrets are never shown',
    },
  ],
  describe: (s) => (s.sandbox === 'off' ? 'unsandboxed' : ''),
});

export const LocalSpec = localSpec.specSchema;
export type LocalSpec = z.infer<typeof LocalSpec>;
