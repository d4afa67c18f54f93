// Quote for any POSIX shell: one single-quoted word.
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
