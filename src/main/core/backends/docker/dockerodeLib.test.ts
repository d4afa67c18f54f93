// The stand-ins loadDockerode puts in place of dockerode's BuildKit session and docker-modem's ssh agent: each loads
// the real module at its first call and answers as it does.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadDockerode } from './dockerodeLib.js';

const load = createRequire(import.meta.url);
const inPackage = (path: string[], request: string): string => {
  let from = load;
  for (const name of path) from = createRequire(from.resolve(`${name}/package.json`));
  return from.resolve(request);
};
/** What the module loaded from `file` exports now (a stand-in, or the real module once called). */
const exportsOf = (file: string): unknown => {
  const m = load.cache[file];
  if (!m) throw new Error(`${file} is not loaded`);
  return m.exports;
};

describe('loadDockerode', () => {
  it('gives dockerode, whose session and ssh modules load when first called', async () => {
    const Docker = loadDockerode();
    expect(loadDockerode()).toBe(Docker);
    expect(typeof new Docker({ socketPath: '/nonexistent.sock' }).getContainer('x').inspect).toBe('function');
    const session = inPackage(['dockerode'], './lib/session.js');
    const standIn = exportsOf(session) as (docker: unknown, auth: unknown, cb: (e: Error) => void) => void;
    expect(standIn.name).toBe('deferred');
    // The real withSession dials the engine first: a dial that fails is handed to the callback as it is.
    const failed = await new Promise<Error>((resolve) =>
      standIn(
        { modem: { dial: (_o: unknown, cb: (e: Error) => void) => cb(new Error('no engine')) } },
        undefined,
        resolve,
      ),
    );
    expect(failed.message).toBe('no engine');
    expect((exportsOf(session) as { name: string }).name).toBe('withSession');
    expect(Object.keys(load.cache).some((m) => m.includes('/node_modules/@grpc/grpc-js/'))).toBe(true);

    const ssh = inPackage(['dockerode', 'docker-modem'], './lib/ssh.js');
    const agent = (exportsOf(ssh) as (opt: object) => { createConnection: unknown })({});
    expect(typeof agent.createConnection).toBe('function');
    expect(Object.keys(load.cache).some((m) => m.includes('/node_modules/ssh2/lib/'))).toBe(true);
  });
});
