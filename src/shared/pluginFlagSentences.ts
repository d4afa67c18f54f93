// What enabling a plugin lets it do, in words a person reads before saying yes: the CLI's prompt and the window's
// dialog.
import type { ManifestFlags } from './plugins.js';

/**
 * One sentence per thing a plugin with these (manifest) flags may do, most important first. Every plugin's code
 * runs on this machine with the person's own powers, whatever its flags say; the flags say where its commands run,
 * whether they are asked about, and whether it opens shells.
 */
export function pluginFlagSentences(flags: ManifestFlags | undefined): string[] {
  const f = flags ?? {};
  const skip = f.skip_container_guards ?? f.is_container ?? false;
  const sentences = ['Its code runs on this machine with your own powers, in a process of its own.'];
  if (f.is_remote) sentences.push('Its commands run on another machine.');
  else if (f.is_container)
    sentences.push('Its commands run on this machine, inside a sandbox or container it provides.');
  else sentences.push('Its commands run on this machine.');
  if (skip) {
    const why = f.is_container ? 'it declares it is a container' : 'it declares its commands need no asking';
    sentences.push(
      `Commands on its targets will not be asked about: ${why} (targets that make folders of this machine ` +
        `writable still ask).`,
    );
  } else {
    sentences.push('Dangerous commands on its targets ask you first.');
  }
  if (f.supports_streams) sentences.push('It can start interactive shells.');
  return sentences;
}
