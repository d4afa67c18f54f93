// Decodes the Engine's X-Docker-Container-Path-Stat header (base64 JSON with a Go os.FileMode).

export interface PathStat {
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** Permission bits only (0o7777). */
  perm: number;
  /** For a symlink: the fully resolved absolute target inside the container (the Engine resolves it). */
  linkTarget: string;
}

// Go's os.FileMode type bits.
const modeDir = 2 ** 31;
const modeSymlink = 2 ** 27;
// device, named pipe, socket, char device, irregular
const otherTypeBits = [2 ** 26, 2 ** 25, 2 ** 24, 2 ** 21, 2 ** 19];

export function fileModeType(mode: number): PathStat['type'] {
  // The mode may exceed 2^31, so bit tests go through division rather than 32-bit `&`.
  const bit = (b: number): boolean => Math.floor(mode / b) % 2 === 1;
  if (bit(modeDir)) return 'directory';
  if (bit(modeSymlink)) return 'symlink';
  return otherTypeBits.some(bit) ? 'other' : 'file';
}

export function parsePathStat(header: string | undefined): PathStat | undefined {
  if (!header) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  } catch {
    // a header that does not decode: the path's stat is unknown
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as { size?: unknown; mode?: unknown; linkTarget?: unknown };
  const mode = typeof r.mode === 'number' ? r.mode : 0;
  return {
    type: fileModeType(mode),
    size: typeof r.size === 'number' ? r.size : 0,
    perm: mode % 0o10000,
    linkTarget: typeof r.linkTarget === 'string' ? r.linkTarget : '',
  };
}
