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
