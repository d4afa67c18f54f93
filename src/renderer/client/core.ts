// The app's single CoreClient and its connection state; every call the UI makes goes through `call`, which turns errors
// into toasts.
import { create } from 'zustand';
import type { CoreMethod, MethodInput, MethodOutput } from '../../shared/api.js';
import { connect, type ConnectionState } from './connect.js';
import { toastError } from '../store/toasts.js';

export const useConnection = create<{ state: ConnectionState; reason?: string }>(() => ({ state: 'connecting' }));

/**
 * The Core sends this connection only the events the UI listens to: `core.on(event)` subscribes for the first
 * listener and unsubscribes after the last (see CoreClient), and pane output follows the panes this window opened.
 */
export const core = connect((state, reason) => useConnection.setState({ state, reason }));

/** A Core call whose failure the person sees as a toast; resolves to undefined then. */
export async function call<M extends CoreMethod>(
  method: M,
  input: MethodInput<M>,
): Promise<MethodOutput<M> | undefined> {
  try {
    return await core.call(method, input);
  } catch (err) {
    toastError(err);
    return undefined;
  }
}
