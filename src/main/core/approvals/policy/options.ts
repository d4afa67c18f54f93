// GNU-style option parsing for rules: short flags bundled or apart, long flags with `=` or a separate value,
// options after operands (GNU permutes them), and `--` ending options.
import type { Arg } from './scanTypes.js';

export interface OptionSpec {
  /** Short options that take a value (`-n 5`, `-n5`), as letters: 'nI'. */
  shortValue?: string;
  /** Long options that take a value, without dashes: ['max-args']. */
  longValue?: string[];
  /** Stop at the first operand (POSIX order), as wrappers like sudo and timeout do. */
  posix?: boolean;
  /** `-0` is a flag (xargs), not a negative number operand (kill). */
  digitFlags?: boolean;
}

export interface ParsedOptions {
  /** Every flag seen: short as `-r`, long as `--recursive`. */
  flags: Set<string>;
  values: Map<string, string>;
  operands: Arg[];
  /** Index in the input of the first operand when `posix` (the rest is the wrapped command). */
  rest: number;
}

export function parseOptions(args: Arg[], spec: OptionSpec = {}): ParsedOptions {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const operands: Arg[] = [];
  const shortValue = spec.shortValue ?? '';
  const longValue = new Set(spec.longValue ?? []);
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!.value;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      return { flags, values, operands, rest: i + 1 };
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      flags.add(`--${name}`);
      if (eq > 0) values.set(`--${name}`, a.slice(eq + 1));
      else if (longValue.has(name) && i + 1 < args.length) values.set(`--${name}`, args[++i]!.value);
      continue;
    }
    if (a.startsWith('-') && a.length > 1 && (spec.digitFlags || !/^-\d+$/.test(a))) {
      for (let k = 1; k < a.length; k++) {
        const letter = a[k]!;
        flags.add(`-${letter}`);
        if (shortValue.includes(letter)) {
          const inline = a.slice(k + 1);
          if (inline) values.set(`-${letter}`, inline);
          else if (i + 1 < args.length) values.set(`-${letter}`, args[++i]!.value);
          break;
        }
      }
      continue;
    }
    if (spec.posix) break;
    operands.push(args[i]!);
  }
  if (spec.posix) operands.push(...args.slice(i));
  return { flags, values, operands, rest: i };
}

/** Is any of these flags given? GNU accepts an unambiguous prefix of a long option (`--rec` for `--recursive`). */
export function hasAny(p: ParsedOptions, ...names: string[]): boolean {
  return names.some(
    (n) => p.flags.has(n) || (n.startsWith('--') && [...p.flags].some((f) => f.length >= 5 && n.startsWith(f))),
  );
}

/** Global options before the subcommand (those matching `valueFlags` take the next word), then the subcommand and its
 * own arguments: `docker -H x rm y` → sub `rm`. */
export function subcommand(argv: Arg[], valueFlags: RegExp): { sub?: Arg; args: Arg[]; globals: Arg[] } {
  let i = 1;
  while (i < argv.length && argv[i]!.value.startsWith('-')) {
    i += valueFlags.test(argv[i]!.value) ? 2 : 1;
  }
  return { sub: argv[i], args: argv.slice(i + 1), globals: argv.slice(1, i) };
}
