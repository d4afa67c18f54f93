// Quoting for any POSIX shell: one single-quoted word, and a program file's values as assignments.
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A program file's values as one line of shell assignments (`name='value'; …`), sent before the program (a .sh file
 * beside its module) so that it takes them as variables, never as text spliced into it.
 */
export function shellAssignments(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}=${shellQuote(String(value))}`)
    .join('; ');
}
