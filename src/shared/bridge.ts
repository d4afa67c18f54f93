// What Electron's preload exposes to the renderer: a message pipe carrying the same wire messages as the WebSocket.
import type { WireRequest } from './api.js';

/**
 * The single IPC channel; every message on it is a WireRequest (renderer → main) or a WireMessage (main → renderer).
 */
export const ELECTRON_CHANNEL = 'switchboard:wire';

/** `window.switchboard` in Electron. The renderer wraps it in a Link for CoreClient. */
export interface SwitchboardBridge {
  send(message: WireRequest): void;
  /** Returns a function that removes the listener. */
  onMessage(listener: (message: unknown) => void): () => void;
}
