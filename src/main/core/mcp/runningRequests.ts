// The /mcp requests still running, so that a client's notifications/cancelled, which comes in a POST of its own,
// reaches the POST that asked (answered by the SDK's Server or by /mcp itself), as it would over stdio.
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** What answers a running request: told when its client cancels it. */
export interface Cancellable {
  cancel(id: RequestId, notification: JSONRPCMessage): void;
}

/**
 * Requests by client (the client's Mcp-Session-Id header; none for a stateless client) and id. Every agent holds the
 * same token, so a cancel can only stop calls of its own client, and without one any call with that id: one that stops
 * a call too many is safer than an approval nobody waits for.
 */
export class RunningRequests {
  private readonly byKey = new Map<string, Set<Cancellable>>();

  private static key(clientId: string, id: RequestId): string {
    // Typed: the number 1 and the string "1" are two requests.
    return typeof id === 'number' ? `${clientId}\n#${id}` : `${clientId}\n"${id}`;
  }

  add(clientId: string, id: RequestId, holder: Cancellable): void {
    const key = RunningRequests.key(clientId, id);
    const holders = this.byKey.get(key);
    if (holders) holders.add(holder);
    else this.byKey.set(key, new Set([holder]));
  }

  /** The request was answered or cancelled (or its POST is gone). */
  settle(clientId: string, id: RequestId, holder: Cancellable): void {
    const key = RunningRequests.key(clientId, id);
    const holders = this.byKey.get(key);
    if (!holders?.delete(holder) || holders.size > 0) return;
    this.byKey.delete(key);
  }

  /** Cancels request `id` of `clientId` where it runs; false when nothing of that id runs. */
  cancel(clientId: string, id: RequestId, notification: JSONRPCMessage): boolean {
    const holders = this.byKey.get(RunningRequests.key(clientId, id));
    if (!holders?.size) return false;
    for (const holder of [...holders]) holder.cancel(id, notification);
    return true;
  }
}
