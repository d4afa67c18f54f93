// The line typed into a new shell so a split starts in its source pane's directory (pane.open takes no cwd).
/**
 * A POSIX-quoted `cd` that then clears the screen, with a leading space so shells that ignore
 * space-prefixed lines keep it out of history. Undefined for a path no line can carry safely.
 * `keepScreen`: the screen shows what matters (a shell started again after a reconnect): only the echoed line goes.
 */
export function cdCommand(path: string, keepScreen = false): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (!path || /[\x00-\x1f\x7f]/.test(path)) return undefined;
  const quoted = `'${path.replace(/'/g, `'\\''`)}'`;
  const erase = keepScreen ? '\\033[1A\\033[2K' : '\\033[H\\033[2J';
  return ` cd -- ${quoted} && printf '${erase}'\r`;
}
