// Dials one hop: TCP (or a jump's forwarded channel), host-key check with the person's decision, login.
import type { Duplex } from 'node:stream';
import type { Client, ServerHostKeyAlgorithm } from 'ssh2';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { HostKeyRequest } from '../provider.js';
import { verifyHostKey, knownTypesFor, type KnownHostFiles } from './hostKeys.js';
import { preferredHostKeyAlgorithms, type KnownHostEntry } from './knownHosts.js';
import type { LiveConnection } from './liveConnection.js';
import type { AuthMethod } from './sshAuth.js';
import type { SshHop } from './sshRoute.js';
import { loadSsh2 } from './ssh2Lib.js';

export interface DialOptions {
  hop: SshHop;
  /** The socket through a jump host, when there is one. */
  sock?: Duplex;
  auth: { methods: AuthMethod[]; tried: string[] };
  entries: readonly KnownHostEntry[];
  files: KnownHostFiles;
  /** Fingerprints trusted once for this pool slot. */
  trustedOnce: Set<string>;
  confirm?: (request: HostKeyRequest, signal: AbortSignal) => Promise<'trust_always' | 'trust_once' | 'reject'>;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
}

/**
 * A logged-in ssh2 Client, or one clear error. The connect timeout does not count the time a person spends on a
 * host-key prompt; a prompt whose connection closes meanwhile is withdrawn (its signal aborts) and its answer
 * never reaches ssh2, which throws when called back on a torn-down connection.
 */
export function dial(o: DialOptions): Promise<Client> {
  const { hop } = o;
  const where = `${hop.host}:${hop.port}`;
  const client = new (loadSsh2().Client)();
  // Aborted when this handshake ends without a connection: a host-key prompt still open for it is withdrawn.
  const gone = new AbortController();
  return new Promise<Client>((resolve, reject) => {
    let settled = false;
    let prompting = false;
    let verifyError: SwitchboardError | undefined;
    let timer: NodeJS.Timeout | undefined;
    const disarm = (): void => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    };
    const arm = (): void => {
      disarm();
      timer = setTimeout(() => {
        fail(
          new SwitchboardError(
            'target_unreachable',
            `timed out connecting to ${where} (target "${hop.target}") after ${Math.round(o.connectTimeoutMs / 1000)}s`,
            'is the host up and the port right? a firewall may be dropping the connection',
          ),
        );
      }, o.connectTimeoutMs);
    };
    const fail = (err: SwitchboardError): void => {
      gone.abort();
      if (settled) return;
      settled = true;
      disarm();
      client.destroy();
      reject(err);
    };
    client.on('error', (err: Error & { code?: string; level?: string }) =>
      fail(verifyError ?? connectError(err, hop, o.auth.tried)),
    );
    client.on('close', () =>
      fail(
        verifyError ??
          (prompting
            ? new SwitchboardError(
                'target_unreachable',
                `${where} (target "${hop.target}") closed the connection while its host key waited for approval`,
                'the server allows only so long for a login (LoginGraceTime); call again and answer the prompt sooner',
              )
            : new SwitchboardError(
                'target_unreachable',
                `${where} (target "${hop.target}") closed the connection during the SSH handshake`,
                'is it an SSH server? it may also limit connections (MaxStartups)',
              )),
      ),
    );
    client.once('ready', () => {
      if (settled) return;
      settled = true;
      disarm();
      // Small request/response packets: without TCP_NODELAY, Nagle and delayed ACKs add ~40 ms to every exec.
      client.setNoDelay(true);
      resolve(client);
    });
    arm();
    const confirm = o.confirm;
    client.connect({
      host: hop.host,
      port: hop.port,
      ...(o.sock ? { sock: o.sock } : {}),
      username: hop.user,
      readyTimeout: 0,
      keepaliveInterval: o.keepaliveIntervalMs,
      keepaliveCountMax: o.keepaliveCountMax,
      authHandler: o.auth.methods,
      algorithms: {
        serverHostKey: preferredHostKeyAlgorithms(
          knownTypesFor(o.entries, hop.host, hop.port),
          defaultHostKeyAlgorithms,
        ) as ServerHostKeyAlgorithm[],
      },
      hostVerifier: (key: Buffer, verify: (valid: boolean) => void): void => {
        // The answer may come long after the server gave up (its LoginGraceTime): ssh2 must never be
        // called back on a closed connection (it throws from inside its torn-down protocol state).
        const answer = (valid: boolean): void => {
          if (!settled) verify(valid);
        };
        verifyHostKey({
          target: hop.target,
          host: hop.host,
          port: hop.port,
          blob: key,
          entries: o.entries,
          files: o.files,
          trustedOnce: o.trustedOnce,
          confirm: confirm ? (r) => confirm(r, gone.signal) : undefined,
          onPromptStart: () => {
            prompting = true;
            disarm();
          },
          onPromptEnd: () => {
            prompting = false;
            if (!settled) arm();
          },
        }).then(
          () => answer(true),
          (err: unknown) => {
            verifyError =
              err instanceof SwitchboardError
                ? err
                : new SwitchboardError('host_key_unknown', `could not check the host key of ${where}`, String(err));
            answer(false);
          },
        );
      },
    });
  });
}

/** ssh2's default host-key algorithms (all available in pure JS on Node 20), in its order. */
const defaultHostKeyAlgorithms: ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** A direct-tcpip channel through a jump connection, used as the next hop's socket. */
export function forwardOut(jump: LiveConnection, hop: SshHop): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const off = jump.onLost(reject);
    const fail = (why: string): void => {
      off();
      reject(
        new SwitchboardError(
          'target_unreachable',
          `jump host ${jump.label} could not reach ${hop.host}:${hop.port} (target "${hop.target}"): ${why}`,
          'check the target address as seen from the jump host, and AllowTcpForwarding there',
        ),
      );
    };
    try {
      jump.client.forwardOut('127.0.0.1', 0, hop.host, hop.port, (err, stream) => {
        if (err) return fail(err.message);
        off();
        resolve(stream);
      });
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  });
}

/** One clear line for a failed connect, naming host:port. */
function connectError(err: Error & { code?: string; level?: string }, hop: SshHop, tried: string[]): SwitchboardError {
  const where = `${hop.host}:${hop.port} (target "${hop.target}")`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return new SwitchboardError(
        'target_unreachable',
        `connection refused by ${where}`,
        'is sshd running there, and is the port right?',
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SwitchboardError(
        'target_unreachable',
        `cannot resolve host ${hop.host} (target "${hop.target}")`,
        'check ssh_host, or the Host alias in ~/.ssh/config',
      );
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new SwitchboardError(
        'target_unreachable',
        `no route to ${where} (${err.code})`,
        'is the host up and on this network?',
      );
    case 'ECONNRESET':
      return new SwitchboardError(
        'target_unreachable',
        `${where} reset the connection during the SSH handshake`,
        'the server may be refusing this client',
      );
    default:
      break;
  }
  if (err.level === 'client-authentication') {
    return new SwitchboardError(
      'auth_failed',
      `authentication failed for ${hop.user}@${hop.host}:${hop.port} (target "${hop.target}"); ` +
        `tried ${tried.join(', ')}`,
      "check ssh_user and that the key is in the server's authorized_keys",
    );
  }
  return new SwitchboardError(
    'target_unreachable',
    `could not connect to ${where}: ${err.message.split('\n')[0]}`,
    'check the host, port and credentials',
  );
}
