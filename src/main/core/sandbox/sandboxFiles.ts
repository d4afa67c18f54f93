// read_file, write_file, patch and search_files' stat on a sandboxed target, done by the target's file server: a Node
// helper (helper/helperMain.ts) running inside the sandbox with the same mounts as its commands, started once and
// asked over its IPC channel, rather than by the Core's own fs calls.
//
// Why inside, and not a check in the Core: the helper sees exactly what a command there sees — masked paths empty,
// read-only mounts read-only, a symlink in the workspace resolved inside the sandbox (`ln -s ~/.switchboard/x y`
// lands on the empty masked profile, not the real file) — and the kernel enforces it at the moment of the open, so
// there is no check-then-use race and no second copy of the rules to keep in step with bwrapArgs. The helper stays up
// (a file operation costs a message, not a sandbox's start); it is started again when the sandbox's mounts change (a
// workspace made since, a repository found), so its view is always the one a command would get.
import type { ChildProcess } from 'node:child_process';
import { SwitchboardError } from '../../../shared/errors.js';
import { HelperReady, HelperReply, HelperRequest } from '../../../shared/sandboxHelper.js';
import type { FileStat } from '../platform/index.js';
import { writeError, builtFile } from '../platform/index.js';
import type { Sandbox } from './sandbox.js';
import { deniedIn, WAY_OUT, writableList } from './sandboxNote.js';
import { within } from './sandboxPolicy.js';

/** How long one file operation may take inside before the server is ended (and started again for the next one). */
const FILE_OP_TIMEOUT_MS = 60_000;
/** How long the server may take to start. */
const START_TIMEOUT_MS = 20_000;

type Request = HelperRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface Server {
  child: ChildProcess;
  /** The sandbox's mounts it was started with. */
  signature: string;
  ready: Promise<void>;
  pending: Map<number, { resolve(r: HelperReply): void; reject(e: Error): void }>;
}

/** Starts a program inside the sandbox with an IPC channel (the environment's, which tracks it for cleanup). */
export type StartInside = (argv: [string, ...string[]]) => ChildProcess;

/** The sandbox's answer to a refused file operation, in one line, with the way out. */
function refusal(
  sandbox: Sandbox,
  op: 'read' | 'write',
  path: string,
  r: Extract<HelperReply, { ok: false }>,
): SwitchboardError {
  const real = r.real ?? path;
  const { policy } = sandbox;
  const denied = deniedIn(real, policy);
  const note = denied
    ? `[sandbox: ${denied} stays read-only: it is in the deny-write table (what runs later outside the sandbox)]`
    : `[sandbox: writes are allowed only in ${writableList(policy)}]`;
  const hint =
    `add the folder to the target's sandbox.writable, ` +
    `or ${WAY_OUT.replace('run it again', 'do it with the terminal tool')}`;
  if (op === 'write') {
    // A refusal in a writable place (a read-only mount under the workspace, a file not ours), a full disk or a
    // failing device are not the sandbox's doing: no note. Elsewhere the sandbox is the likely cause.
    const allowed = [...policy.writable, '/tmp'].some((w) => within(real, w)) && !denied;
    const code = r.errno;
    const sandboxs = code === undefined || ((code === 'EROFS' || code === 'EACCES' || code === 'EPERM') && !allowed);
    return sandboxs
      ? writeError(path, code, { detail: r.message, note, hint, ...(r.inPlace ? { inPlace: true } : {}) })
      : writeError(path, code, r.inPlace ? { inPlace: true } : {});
  }
  const why = r.errno === 'EROFS' ? 'Read-only file system' : r.errno === 'EACCES' ? 'Permission denied' : r.message;
  return new SwitchboardError('bad_request', `cannot read ${path}: ${why} ${note}`, hint);
}

/** The file operations of a sandboxed local target. */
export class SandboxFiles {
  private server: Server | undefined;
  private nextId = 1;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly start: StartInside,
  ) {}

  private launch(signature: string): Server {
    const child = this.start([process.execPath, builtFile('sandbox-helper/helper.cjs', 'the sandbox helper'), 'files']);
    const pending = new Map<number, { resolve(r: HelperReply): void; reject(e: Error): void }>();
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-2000)));
    const server: Server = { child, signature, pending, ready: Promise.resolve() };
    server.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        void this.sandbox.killAll(child, 0);
        reject(new SwitchboardError('internal', 'the sandbox file helper did not start in time'));
      }, START_TIMEOUT_MS);
      child.on('message', (m: unknown) => {
        if (HelperReady.safeParse(m).success) {
          clearTimeout(timer);
          resolve();
          return;
        }
        const reply = HelperReply.safeParse(m);
        if (!reply.success) return; // not a reply of ours: the helper runs where agent code runs
        pending.get(reply.data.id)?.resolve(reply.data);
        pending.delete(reply.data.id);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (this.server === server) this.server = undefined;
        const why = stderr.trim().split('\n').pop() || `it ended (${signal ?? `exit ${code}`})`;
        const err = new SwitchboardError('internal', `the sandbox file helper stopped: ${why}`);
        reject(err);
        for (const p of pending.values()) p.reject(err);
        pending.clear();
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new SwitchboardError('internal', `could not start the sandbox: ${err.message}`));
      });
    });
    return server;
  }

  /** The server for the sandbox's mounts as they are now: the running one, or a new one. */
  private async current(): Promise<Server> {
    const signature = this.sandbox.mountSignature();
    if (this.server && this.server.signature !== signature) {
      const old = this.server;
      this.server = undefined;
      void this.sandbox.killAll(old.child, 0);
    }
    this.server ??= this.launch(signature);
    await this.server.ready;
    return this.server;
  }

  private async ask(request: Request): Promise<HelperReply> {
    // What the helper would refuse to read (a path over PATH_MAX) is answered here: no such file can exist.
    if (!HelperRequest.safeParse({ ...request, id: 0 }).success)
      return { id: 0, ok: false, errno: 'ENAMETOOLONG', message: 'File name too long' };
    const server = await this.current();
    const id = this.nextId++;
    return new Promise<HelperReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        server.pending.delete(id);
        void this.sandbox.killAll(server.child, 0);
        reject(new SwitchboardError('timeout', `the file operation took over ${FILE_OP_TIMEOUT_MS / 1000} s`));
      }, FILE_OP_TIMEOUT_MS);
      server.pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      server.child.send({ ...request, id } as HelperRequest);
    });
  }

  async stat(path: string): Promise<FileStat> {
    const r = await this.ask({ op: 'stat', path });
    return r.ok && r.stat ? r.stat : { type: 'missing', size: 0 };
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    const r = await this.ask({ op: 'read', path, max: maxBytes });
    if (r.ok) return r.data ? Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength) : Buffer.alloc(0);
    if (r.over)
      throw new SwitchboardError(
        'too_large',
        `${path} is over ${maxBytes} bytes`,
        'read a part of it with offset and limit, or use terminal with head/tail',
      );
    if (r.errno === 'ENOENT' || r.errno === 'ENAMETOOLONG')
      throw new SwitchboardError('bad_request', `no such file: ${path}`);
    if (r.errno === 'EISDIR' || r.errno === 'EINVAL')
      throw new SwitchboardError('bad_request', `not a regular file: ${path}`);
    throw refusal(this.sandbox, 'read', path, r);
  }

  async writeFile(path: string, data: Buffer): Promise<void> {
    const r = await this.ask({ op: 'write', path, data });
    if (!r.ok) throw refusal(this.sandbox, 'write', path, r);
  }

  /** End the server (the environment's cleanup). */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await this.sandbox.killAll(server.child, 0);
  }
}
