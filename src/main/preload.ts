// Exposes one object to the sandboxed renderer: a message pipe on the single Switchboard channel. Nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { ELECTRON_CHANNEL, type SwitchboardBridge } from '../shared/bridge.js';

const bridge: SwitchboardBridge = {
  send: (message) => {
    // Only wire requests pass; the main side validates them again with zod.
    if (message && message.type === 'call' && typeof message.method === 'string' && Number.isInteger(message.id)) {
      ipcRenderer.send(ELECTRON_CHANNEL, {
        type: 'call',
        id: message.id,
        method: message.method,
        params: message.params,
      });
    }
  },
  onMessage: (listener) => {
    const handler = (_e: Electron.IpcRendererEvent, message: unknown): void => listener(message);
    ipcRenderer.on(ELECTRON_CHANNEL, handler);
    return () => void ipcRenderer.off(ELECTRON_CHANNEL, handler);
  },
};

contextBridge.exposeInMainWorld('switchboard', bridge);
