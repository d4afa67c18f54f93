// The stdio front of `switchboard mcp`: answers MCP initialize before the MCP SDK is loaded, then hands stdin to the
// SDK Server.
//
// A client waits for initialize before it sends anything else, and loading the command's bundle (the SDK builds its
// zod schemas at load, commander, the tool declarations) costs more than Node's own start. So the launcher (main.ts)
// runs this first: it reads stdin from the first byte, answers a first line that is a plain initialize as the SDK
// Server would, then loads the bundle and gives the Server every byte it read, that initialize first (the Server so
// learns the client's capabilities and version; its own answer to it is not written again: commands/mcp.ts). What the
// front is not sure of (a first line that is anything else, no running Core) it leaves to the Server untouched.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { switchboardHome } from '../core/home.js';
import { pidAlive } from '../core/processes/processAlive.js';

/** What a real SDK Server answers to initialize, read from one at build time (scripts/build.mjs). */
export interface InitializeTemplate {
  /** The protocol versions the SDK supports: a client's version among them is answered with that version. */
  supported: readonly string[];
  /** The result for a version the SDK does not support (the latest version): capabilities, serverInfo, instructions. */
  result: { protocolVersion: string } & Record<string, unknown>;
}
declare const SB_MCP_INITIALIZE: InitializeTemplate;

type RequestId = string | number;

/** What the front gives the command (commands/mcp.ts serveMcp) once its bundle is loaded. */
export interface McpHandover {
  /** stdin from its first byte: what the front read, then the rest as it comes; ends when stdin ends. */
  input: Readable;
  /** The initialize the front answered: the Server's answer to the same request is not written again. */
  answered?: RequestId;
}

/** The part of the command's bundle the front uses. */
export interface McpEntry {
  serveMcp(handover?: McpHandover): Promise<void>;
}

/** A first line longer than this is left to the Server (which limits what it buffers) without waiting for its end. */
const FIRST_LINE_MAX = 1024 * 1024;

/**
 * Serve `switchboard mcp` through the front when `argv` (process.argv) is exactly that command and a Core runs; false
 * otherwise, and the program runs as for any command (its options, its help, the no_core error).
 */
export function startMcpFront(argv: readonly string[], loadEntry: () => McpEntry): boolean {
  if (argv.length !== 3 || argv[2] !== 'mcp' || !coreRuns()) return false;
  const input = new PassThrough();
  const read: Buffer[] = [];
  let size = 0;
  let handedOver = false;
  const handOver = (answered: RequestId | undefined): void => {
    handedOver = true;
    // Chunk by chunk, as the Server would have read them from stdin.
    for (const chunk of read.splice(0)) input.write(chunk);
    void loadEntry().serveMcp({ input, answered });
  };
  process.stdin.on('data', (chunk: Buffer) => {
    if (handedOver) {
      input.write(chunk);
      return;
    }
    read.push(chunk);
    size += chunk.length;
    const newline = chunk.indexOf(0x0a);
    if (newline < 0 && size < FIRST_LINE_MAX) return;
    const first = newline < 0 ? undefined : Buffer.concat(read).toString('utf8', 0, size - chunk.length + newline);
    handOver(first === undefined ? undefined : answerInitialize(first.replace(/\r$/, '')));
  });
  process.stdin.once('end', () => {
    if (!handedOver) handOver(undefined);
    input.end();
  });
  process.stdin.on('error', (err) => input.emit('error', err));
  return true;
}

/**
 * Whether core.json names a live process. The command checks the file fully (transport/coreFile.ts, with zod, which
 * the front does not load) and fails at start when no Core runs; the front answers nothing before that check.
 */
function coreRuns(): boolean {
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(join(switchboardHome(), 'core.json'), 'utf8')) as { pid?: unknown }).pid;
  } catch {
    // no core.json, or unreadable: no Core is running
    return false;
  }
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pidAlive(pid);
}

/** Answer `line` if it is an initialize request the SDK Server accepts as is; its id then, undefined otherwise. */
function answerInitialize(line: string): RequestId | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    // not JSON: not a plain initialize, handled the slow way
    return undefined;
  }
  if (!plainInitialize(message)) return undefined;
  const { supported, result } = SB_MCP_INITIALIZE;
  const asked = message.params.protocolVersion;
  // As the SDK's Server negotiates: the client's version if the SDK supports it, else the latest.
  const answer = {
    result: { ...result, protocolVersion: supported.includes(asked) ? asked : result.protocolVersion },
    jsonrpc: '2.0',
    id: message.id,
  };
  process.stdout.write(JSON.stringify(answer) + '\n');
  return message.id;
}

type Check = (value: unknown) => boolean;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString: Check = (v) => typeof v === 'string';
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);
const absent: Check = (v) => v === undefined;
/** An object whose `fields` pass their checks; with `closed`, one that has no other field. */
const shape =
  (fields: Record<string, Check>, closed = false): Check =>
  (v) =>
    isObject(v) &&
    Object.entries(fields).every(([k, check]) => check(v[k])) &&
    (!closed || Object.keys(v).every((k) => Object.hasOwn(fields, k)));

/**
 * A subset of what the SDK's schemas accept for initialize (JSONRPCRequestSchema, which is strict, and
 * InitializeRequestSchema): anything outside it (a `_meta`, tasks, icons, a capability of an unexpected shape) is
 * answered by the Server itself, so the front never answers what the Server would refuse.
 */
const plainInitialize = shape(
  {
    jsonrpc: (v) => v === '2.0',
    id: (v) => typeof v === 'string' || Number.isSafeInteger(v),
    method: (v) => v === 'initialize',
    params: shape(
      {
        protocolVersion: isString,
        capabilities: shape({
          experimental: optional((v) => isObject(v) && Object.values(v).every(isObject)),
          extensions: optional((v) => isObject(v) && Object.values(v).every(isObject)),
          sampling: optional(shape({ context: optional(isObject), tools: optional(isObject) })),
          elicitation: optional(
            shape({
              form: optional(shape({ applyDefaults: optional((v) => typeof v === 'boolean') })),
              url: optional(isObject),
            }),
          ),
          roots: optional(shape({ listChanged: optional((v) => typeof v === 'boolean') })),
          tasks: absent,
        }),
        clientInfo: shape({
          name: isString,
          version: isString,
          title: optional(isString),
          websiteUrl: optional(isString),
          description: optional(isString),
          icons: absent,
        }),
      },
      true,
    ),
  },
  true,
) as (v: unknown) => v is { id: RequestId; params: { protocolVersion: string } };
