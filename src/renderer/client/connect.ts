// The renderer's one way to the Core: a CoreClient over Electron's bridge, or over the page's own WebSocket in a
// browser.
import { config as zodConfig } from 'zod';
import { CoreClient, type Link } from '../../shared/client.js';
import type { SwitchboardBridge } from '../../shared/bridge.js';
import type { WireRequest } from '../../shared/api.js';
import { pageToken, personPage } from './personPage.js';

// The page runs under a CSP without 'unsafe-eval': keep zod from probing `new Function`.
zodConfig({ jitless: true });

declare global {
  interface Window {
    switchboard?: SwitchboardBridge;
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

type StateListener = (state: ConnectionState, reason?: string) => void;

function bridgeLink(bridge: SwitchboardBridge): Link {
  return {
    send: (m) => bridge.send(m),
    onMessage: (h) => void bridge.onMessage(h),
    // The Electron bridge lives as long as the window.
    onClose: () => undefined,
  };
}

/** How long the page waits before dialling again after a close: growing, never more than 5 s. */
const RETRY_MS = [500, 1000, 2000, 3000, 5000];

let dialNow: (() => void) | undefined;

/** Dial the Core again now instead of at the next retry (the banner's "Reconnect now"). */
export function reconnectNow(): void {
  dialNow?.();
}

/**
 * A WebSocket link to the serving host, authenticated by the page's token and, on a person's page, the person's
 * cookie. Calls queue until open.
 * When the socket closes it dials again, for as long as the page is open: a Core restarted on the same profile
 * listens on the same port with the same token (transport/stableEndpoint.ts), so the page finds it by itself.
 */
function socketLink(url: string, onState: StateListener): Link {
  let ws: WebSocket;
  let everOpen = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const queue: WireRequest[] = [];
  const closeHandlers: Array<(reason: string) => void> = [];
  const reopenHandlers: Array<() => void> = [];
  const messageHandlers: Array<(message: unknown) => void> = [];
  const dial = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const socket = new WebSocket(url);
    ws = socket;
    // Pane output comes as binary frames (shared/paneFrame.ts), handed to the client as bytes.
    socket.binaryType = 'arraybuffer';
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      attempt = 0;
      const again = everOpen;
      everOpen = true;
      onState('open');
      if (again) for (const h of reopenHandlers) h();
      for (const m of queue.splice(0)) socket.send(JSON.stringify(m));
    });
    socket.addEventListener('message', (ev) => {
      let message: unknown;
      if (ev.data instanceof ArrayBuffer) message = new Uint8Array(ev.data);
      else if (typeof ev.data !== 'string') return;
      else {
        try {
          message = JSON.parse(ev.data);
        } catch {
          return; /* not a wire message */
        }
      }
      for (const h of messageHandlers) h(message);
    });
    socket.addEventListener('close', (ev) => {
      if (opened || !everOpen) {
        const reason = ev.reason || (ev.code === 1006 ? 'the Core went away' : `code ${ev.code}`);
        onState('closed', reason);
        if (opened) for (const h of closeHandlers) h(reason);
      }
      timer = setTimeout(dial, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]);
    });
  };
  dialNow = () => {
    if (ws.readyState === WebSocket.CLOSED) dial();
  };
  dial();
  return {
    send: (m) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
      else if (ws.readyState === WebSocket.CONNECTING && !everOpen) queue.push(m);
      else throw new Error('the connection to the Core is closed');
    },
    onMessage: (h) => void messageHandlers.push(h),
    onClose: (h) => void closeHandlers.push(h),
    onReopen: (h) => void reopenHandlers.push(h),
  };
}

export function connect(onState: StateListener): CoreClient {
  if (window.switchboard) {
    onState('open');
    return new CoreClient(bridgeLink(window.switchboard));
  }
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  onState('connecting');
  // A person's page dials under its home: its cookie (personPage.ts) goes with the upgrade by itself, and nothing of
  // the person's is in this URL. Any other page shows the token.
  const { home } = personPage();
  const token = pageToken();
  const path = home ? `${home}ws` : `/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  return new CoreClient(socketLink(`${proto}//${window.location.host}${path}`, onState));
}
