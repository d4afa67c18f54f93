// Files that commands still running will run, per runtime identity. A command judged by a script's content may read
// that script later (`sleep 5; sh x.sh`, a background `make`): a write to it meanwhile is judged as the code it puts
// there, so content swapped after the judgement does not run unasked.
import type { InputLanguage } from '../../../shared/tools.js';
import type { ProbeFacts, ProbeNeeds } from './policy/probeFacts.js';

/** How many files are remembered per identity; the oldest go first. */
const MAX_PER_IDENTITY = 256;

/** What a file will be read as, from its name and first line (the judgement used the command's own word for it). */
export function runLanguageOf(path: string, text: string | undefined): InputLanguage {
  if (/\.py$/.test(path)) return 'python';
  if (/\.(m|c)?js$|\.ts$/.test(path)) return 'node';
  if (/\.pl$/.test(path)) return 'perl';
  if (/\.rb$/.test(path)) return 'ruby';
  const shebang = /^#![^\n]*?\b(python|node|perl|ruby)/.exec(text ?? '');
  return shebang ? (shebang[1] as InputLanguage) : 'shell';
}

export class RunningFiles {
  private readonly byIdentity = new Map<string, Map<string, { language: InputLanguage; until: number }>>();

  /** The run files a judgement read (where their links lead), remembered until `until` (ms since the epoch). */
  remember(identity: string, facts: ProbeFacts, needs: ProbeNeeds, until: number): void {
    if (needs.files.size === 0) return;
    const files = this.byIdentity.get(identity) ?? new Map<string, { language: InputLanguage; until: number }>();
    for (const lexical of needs.files) {
      const fact = facts.files.get(lexical);
      const real = facts.real.get(lexical) ?? lexical;
      files.delete(real);
      files.set(real, { language: runLanguageOf(real, fact?.kind === 'text' ? fact.text : undefined), until });
    }
    while (files.size > MAX_PER_IDENTITY) files.delete(files.keys().next().value as string);
    this.byIdentity.set(identity, files);
  }

  /** What a file a running command will run is read as; undefined when no command that may still run reads it. */
  languageOf(identity: string, real: string, now = Date.now()): InputLanguage | undefined {
    const entry = this.byIdentity.get(identity)?.get(real);
    if (!entry) return undefined;
    if (entry.until >= now) return entry.language;
    this.byIdentity.get(identity)?.delete(real);
    return undefined;
  }
}
