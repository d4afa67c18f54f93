// The `switchboard` command's top-level commands by name, and which one a command line names (read before anything
// loads).

/** One bundle per name (scripts/build.mjs): src/main/cli/commands/<name>.ts, exporting `<name>Command`. */
export const commandNames = [
  'serve',
  'call',
  'mcp',
  'targets',
  'approvals',
  'doctor',
  'plugins',
  'audit',
  'open',
] as const;
export type CommandName = (typeof commandNames)[number];

/**
 * The command `argv` (process.argv) names: its first word that is not an option (the top level takes no option with a
 * value).
 */
export function namedCommand(argv: readonly string[]): CommandName | undefined {
  const named = argv.slice(2).find((a) => !a.startsWith('-'));
  return commandNames.find((n) => n === named);
}

/**
 * `switchboard mcp [--profile PATH]` as the launcher runs it, straight to the bridge's own bundle: the profile given,
 * or undefined when `argv` is anything else (help, a mistake), which the program answers.
 */
export function mcpBridgeArgs(argv: readonly string[]): { profile?: string } | undefined {
  const [command, ...rest] = argv.slice(2);
  if (command !== 'mcp') return undefined;
  let profile: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg.startsWith('--profile=')) profile = arg.slice('--profile='.length);
    else if (arg === '--profile' && i + 1 < rest.length) profile = rest[++i];
    else return undefined;
  }
  return profile === undefined ? {} : { profile };
}
