// The messages between the Core and a sandbox helper: the Node process that runs inside a target's sandbox to do its
// file operations (the file server) or to carry its network to the Core's proxy (the network holder). Everything a
// helper says is checked here: it runs where agent code runs.
import * as z from 'zod';

/** Bytes, as Node's advanced IPC serialization carries a Buffer. */
const Bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes');
const Path = z.string().min(1).max(4096);

export const HelperRequest = z.discriminatedUnion('op', [
  z.object({ id: z.number().int(), op: z.literal('stat'), path: Path }),
  z.object({ id: z.number().int(), op: z.literal('read'), path: Path, max: z.number().int().min(0) }),
  z.object({ id: z.number().int(), op: z.literal('write'), path: Path, data: Bytes }),
]);
export type HelperRequest = z.infer<typeof HelperRequest>;

export const HelperStat = z.object({ type: z.enum(['file', 'directory', 'other', 'missing']), size: z.number() });

/** The answer to one request: what it asked for, or why not (the errno, the file a write resolved to). */
export const HelperReply = z.union([
  z.object({ id: z.number().int(), ok: z.literal(true), stat: HelperStat.optional(), data: Bytes.optional() }),
  z.object({
    id: z.number().int(),
    ok: z.literal(false),
    errno: z.string().max(32).optional(),
    message: z.string().max(2000),
    /** The file a write resolved to (through a link): whether that place is writable decides the note. */
    real: z.string().max(4096).optional(),
    inPlace: z.boolean().optional(),
    /** A read past `max`. */
    over: z.boolean().optional(),
  }),
]);
export type HelperReply = z.infer<typeof HelperReply>;

/** What a helper says once it is ready for requests (the file server) or its listeners are up (the holder). */
export const HelperReady = z.object({ ready: z.literal(true) });

/** How the network holder is told what to listen on: the proxy's socket, its two ports, the allowed local ports. */
export const HolderConfig = z.object({
  socket: Path,
  http: z.number().int().min(1).max(65_535),
  socks: z.number().int().min(1).max(65_535),
  local: z.array(z.number().int().min(1).max(65_535)).max(256),
});
export type HolderConfig = z.infer<typeof HolderConfig>;
