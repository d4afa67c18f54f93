// The shell a local target's panes start: the spec's `shell` (program and arguments), `shell_login` and `shell_env`,
// else the person's $SHELL. Panes only: the agent's commands keep the bash (or sh) the Core speaks to.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import { splitCommandWords } from '../../../../shared/commandWords.js';

export interface PaneShellSpec {
  shell?: string;
  shell_login?: boolean;
  shell_env?: Record<string, string>;
}

/** Arguments that already make a shell a login shell. */
const LOGIN_ARGS = new Set(['-l', '--login', '-login']);

/**
 * The words a pane's shell is started with. `-l` for a login shell goes after the leading long options, where bash
 * still reads options (`bash --norc -l`; bash takes no long option after a short one).
 */
export function paneShellWords(spec: PaneShellSpec, fallback: string, home: string): [string, ...string[]] {
  const split = spec.shell === undefined ? undefined : splitCommandWords(spec.shell);
  if (split && !split.ok) throw new SwitchboardError('bad_config', `shell ${split.problem}`);
  const [program, ...args] = split?.words ?? [fallback];
  if (spec.shell_login && !args.some((a) => LOGIN_ARGS.has(a))) {
    const at = args.findIndex((a) => !a.startsWith('--'));
    args.splice(at < 0 ? args.length : at, 0, '-l');
  }
  return [expandHome(program, home), ...args];
}

function expandHome(program: string, home: string): string {
  return program === '~' || program.startsWith('~/') ? join(home, program.slice(1)) : program;
}

async function isProgram(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `program` is: itself when it has a slash, else the first match on PATH; undefined when there is none. */
export async function findProgram(program: string, path: string | undefined): Promise<string | undefined> {
  if (program.includes('/')) return (await isProgram(program)) ? program : undefined;
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    if (await isProgram(candidate)) return candidate;
  }
  return undefined;
}

/** The program to start, found on this machine, or the one line that says it is not there. */
export async function resolvePaneShell(
  words: readonly [string, ...string[]],
  path: string | undefined,
  target: string,
): Promise<[string, ...string[]]> {
  const [program, ...args] = words;
  // A relative path would be read from the Core's directory here and from the pane's by the pty: neither is meant.
  if (program.includes('/') && !isAbsolute(program))
    throw new SwitchboardError(
      'bad_config',
      `shell ${program} on ${target} is a relative path`,
      'give its full path (/usr/bin/fish), ~/ and a path in your home, or a name on PATH (fish)',
    );
  const found = await findProgram(program, path);
  if (!found)
    throw new SwitchboardError(
      'bad_config',
      `shell ${program} not found on ${target}`,
      `install it, or change the target's shell (Edit target → More options); empty starts $SHELL`,
    );
  return [found, ...args];
}
