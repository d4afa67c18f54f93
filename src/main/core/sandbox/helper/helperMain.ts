// A sandbox helper's entry (built to out/sandbox-helper/helper.cjs; run by node inside a target's sandbox): `files`
// serves the target's file operations from inside, where the kernel applies the sandbox's mounts at the moment of
// each open (no check-then-use race, no second copy of the rules); `net` holds the sandbox's network namespace and
// carries its loopback listeners to the Core's proxy. It talks to the Core on its IPC channel and ends with it.
import { open, stat } from 'node:fs/promises';
import { HelperRequest, HolderConfig, type HelperReply } from '../../../../shared/sandboxHelper.js';
import { WriteFailure, atomicWrite } from '../../platform/index.js';
import { startBridges } from '../netBridge.js';

function send(message: HelperReply | { ready: true }): void {
  process.send?.(message);
}

function failure(id: number, err: unknown): HelperReply {
  if (err instanceof WriteFailure)
    return {
      id,
      ok: false,
      errno: err.errno,
      message: err.detail.slice(0, 2000),
      real: err.real,
      inPlace: err.inPlace,
    };
  const e = err as NodeJS.ErrnoException;
  return { id, ok: false, errno: e.code, message: String(e.message ?? err).slice(0, 2000) };
}

async function answer(r: HelperRequest): Promise<HelperReply> {
  switch (r.op) {
    case 'stat': {
      const st = await stat(r.path).catch(() => undefined);
      if (!st) return { id: r.id, ok: true, stat: { type: 'missing', size: 0 } };
      const type = st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
      return { id: r.id, ok: true, stat: { type, size: st.size } };
    }
    case 'read': {
      // One open; what is read is what that descriptor holds, up to one byte past the limit (to tell "over").
      const fh = await open(r.path, 'r');
      try {
        const st = await fh.stat();
        if (st.isDirectory()) return { id: r.id, ok: false, errno: 'EISDIR', message: 'Is a directory' };
        if (!st.isFile()) return { id: r.id, ok: false, errno: 'EINVAL', message: 'not a regular file' };
        const buf = Buffer.allocUnsafe(Math.min(r.max + 1, Math.max(st.size, 0) + 1));
        let at = 0;
        for (;;) {
          const { bytesRead } = await fh.read(buf, at, buf.length - at, at);
          if (bytesRead === 0) break;
          at += bytesRead;
          if (at > r.max) return { id: r.id, ok: false, over: true, message: 'over the limit' };
          if (at === buf.length) break;
        }
        return { id: r.id, ok: true, data: buf.subarray(0, at) };
      } finally {
        await fh.close();
      }
    }
    case 'write':
      await atomicWrite(r.path, Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength));
      return { id: r.id, ok: true };
  }
}

function serveFiles(): void {
  process.on('message', (m: unknown) => {
    const parsed = HelperRequest.safeParse(m);
    if (!parsed.success) {
      // Only the Core writes here and it checks first; a request it should not have sent is still answered.
      const id = (m as { id?: unknown } | null)?.id;
      if (typeof id === 'number') send({ id, ok: false, errno: 'EINVAL', message: 'malformed request' });
      return;
    }
    void answer(parsed.data).then(send, (err: unknown) => send(failure(parsed.data.id, err)));
  });
  send({ ready: true });
}

async function holdNetwork(): Promise<void> {
  const config = HolderConfig.parse(JSON.parse(process.argv[3] ?? '{}'));
  await startBridges({
    socketPath: config.socket,
    httpPort: config.http,
    socksPort: config.socks,
    localPorts: config.local,
  });
  send({ ready: true });
}

// The Core gone (its channel closed) ends the helper; bwrap's --die-with-parent ends what is left.
process.on('disconnect', () => process.exit(0));
if (process.argv[2] === 'net') {
  holdNetwork().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
} else if (process.argv[2] === 'files') serveFiles();
else {
  process.stderr.write('the sandbox helper is started as `files` or `net`\n');
  process.exit(2);
}
