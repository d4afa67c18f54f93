// Broadcast input's one path: what a person typed into a pane of the group goes to every other pane of it, each through
// its own session (its own pane.write, connection and flow control; type-ahead while its shell starts).
import { broadcastsFrom, useBroadcast } from '../store/broadcast.js';
import { sessions } from './sessions.js';

export function sendToGroup(from: string, data: string): void {
  if (!broadcastsFrom(from)) return;
  for (const id of useBroadcast.getState().members) if (id !== from) sessions.get(id)?.receive(data);
}
