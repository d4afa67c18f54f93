// The Electron IPC adapter: one window's renderer as a Core connection, on the single wire channel.
import { ipcMain, type WebContents } from 'electron';
import { ELECTRON_CHANNEL } from '../../shared/bridge.js';
import { Connection, type ConnectionCore, type ConnectionIdentity } from './connection.js';

/** The window's own channel: a person's. */
const windowCaller: ConnectionIdentity = { client: 'ui', person: 'window', personRefusal: () => undefined };

/** Wire one window's renderer to the Core. Returns a function that unwires it. */
export function attachWindow(core: ConnectionCore, contents: WebContents): () => void {
  const conn = new Connection(
    core,
    {
      send: (message) => contents.send(ELECTRON_CHANNEL, message),
      // IPC gives no measure of what the renderer has not taken yet; the renderer's acks pace its panes.
      buffered: () => 0,
      isOpen: () => !contents.isDestroyed(),
      close: () => undefined,
    },
    undefined,
    windowCaller,
  );
  const onMessage = (e: Electron.IpcMainEvent, raw: unknown): void => {
    if (e.sender === contents) void conn.receive(raw);
  };
  ipcMain.on(ELECTRON_CHANNEL, onMessage);
  return () => {
    conn.dispose();
    ipcMain.off(ELECTRON_CHANNEL, onMessage);
  };
}
