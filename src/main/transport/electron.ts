// The Electron IPC adapter: the same wire messages as the WebSocket, on one channel, validated at the boundary.
import { ipcMain, type WebContents } from 'electron';
import { toErrorPayload } from '../../shared/errors.js';
import { WireRequest, type WireResponse } from '../../shared/api.js';
import { ELECTRON_CHANNEL } from '../../shared/bridge.js';
import type { Core } from '../core/core.js';

/** Wire one window's renderer to the Core. Returns a function that unwires it. */
export function attachWindow(core: Core, contents: WebContents): () => void {
  const send = (message: unknown): void => {
    if (!contents.isDestroyed()) contents.send(ELECTRON_CHANNEL, message);
  };
  const offEvents = core.onEvent((event, payload) => send({ type: 'event', event, payload }));
  const panes = core.paneTracker();
  const onMessage = async (e: Electron.IpcMainEvent, raw: unknown): Promise<void> => {
    if (e.sender !== contents) return;
    const parsed = WireRequest.safeParse(raw);
    if (!parsed.success) return;
    const msg = parsed.data;
    let reply: WireResponse;
    try {
      const result = await core.invoke(msg.method, msg.params);
      panes.track(msg.method, result, msg.params);
      reply = { type: 'result', id: msg.id, ok: true, result };
    } catch (err) {
      reply = { type: 'result', id: msg.id, ok: false, error: toErrorPayload(err) };
    }
    send(reply);
  };
  ipcMain.on(ELECTRON_CHANNEL, onMessage);
  return () => {
    offEvents();
    panes.release();
    ipcMain.off(ELECTRON_CHANNEL, onMessage);
  };
}
