// The Core's own look at a plugin target's spec: does it name a path of this machine that commands could write?
// A plugin's flags are its word; this is read from the spec alone, so a plugin that says "container, skip asking"
// cannot skip asking on a target that binds host folders read-write.

/** Keys every spec has that name places inside the target, never a bind of this machine. */
const insideKeys = new Set(['backend', 'cwd', 'timeout']);

/**
 * `PATH`, `HOST:INSIDE` or `HOST:INSIDE:OPTS` whose host side is a path (`/…`, `~…`, `./…`, `../…`) not marked `ro`.
 */
function writableHostPath(text: string): boolean {
  const [host = '', , opts = ''] = text.split(':');
  if (!/^(\/|~|\.\.?(\/|$))/.test(host.trim())) return false;
  return !opts
    .split(',')
    .map((o) => o.trim())
    .includes('ro');
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

/** The first value of the spec that names a host path commands could write (for a log line), or undefined. */
export function writableHostPathIn(spec: Readonly<Record<string, unknown>>): string | undefined {
  for (const [key, value] of Object.entries(spec)) {
    if (insideKeys.has(key)) continue;
    const found = strings(value).find(writableHostPath);
    if (found !== undefined) return `${key}: ${found}`;
  }
  return undefined;
}
