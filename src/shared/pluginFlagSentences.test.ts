import { describe, expect, it } from 'vitest';
import { pluginFlagSentences } from './pluginFlagSentences.js';
import type { ManifestFlags } from './plugins.js';

const code = 'Its code runs on this machine with your own powers, in a process of its own.';
const asks = 'Dangerous commands on its targets ask you first.';
const container =
  'Commands on its targets will not be asked about: it declares it is a container (targets that make folders ' +
  'of this machine writable still ask).';

describe('pluginFlagSentences', () => {
  const table: Array<[string, ManifestFlags | undefined, string[]]> = [
    ['no flags at all: local, asks', undefined, [code, 'Its commands run on this machine.', asks]],
    ['empty flags: the same', {}, [code, 'Its commands run on this machine.', asks]],
    [
      'a container skips asking by default',
      { is_container: true },
      [code, 'Its commands run on this machine, inside a sandbox or container it provides.', container],
    ],
    [
      'a container that keeps asking',
      { is_container: true, skip_container_guards: false },
      [code, 'Its commands run on this machine, inside a sandbox or container it provides.', asks],
    ],
    [
      'skipping without being a container says so',
      { skip_container_guards: true },
      [
        code,
        'Its commands run on this machine.',
        'Commands on its targets will not be asked about: it declares its commands need no asking (targets ' +
          'that make folders of this machine writable still ask).',
      ],
    ],
    ['remote, asking', { is_remote: true }, [code, 'Its commands run on another machine.', asks]],
    [
      'remote container with shells',
      { is_remote: true, is_container: true, supports_streams: true },
      [code, 'Its commands run on another machine.', container, 'It can start interactive shells.'],
    ],
    [
      'the bwrap example',
      { is_container: true, supports_streams: true, supports_pty: true },
      [
        code,
        'Its commands run on this machine, inside a sandbox or container it provides.',
        container,
        'It can start interactive shells.',
      ],
    ],
    [
      'a pty without streams offers no shell',
      { supports_pty: true },
      [code, 'Its commands run on this machine.', asks],
    ],
  ];
  for (const [name, flags, sentences] of table) it(name, () => expect(pluginFlagSentences(flags)).toEqual(sentences));
});
