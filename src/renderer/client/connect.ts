// The renderer's one way to the Core: a CoreClient over Electron's bridge, or over the page's own WebSocket in a browser.
import { config as zodConfig } from 'zod';
import { CoreClient, type Link } from '../../shared/client.js';
import type { SwitchboardBridge } from '../../shared/bridge.js';
import type { WireRequest } from '../../shared/api.js';

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

/** A WebSocket link to the serving host, authenticated by the token in the page's own path. Calls queue until open. */
function socketLink(url: string, onState: StateListener): Link {
  const ws = new WebSocket(url);
  // Pane output comes as binary frames (shared/paneFrame.ts), handed to the client as bytes.
  ws.binaryType = 'arraybuffer';
  const queue: WireRequest[] = [];
  const closeHandlers: Array<(reason: string) => void> = [];
  ws.addEventListener('open', () => {
    onState('open');
    for (const m of queue.splice(0)) ws.send(JSON.stringify(m));
  });
  ws.addEventListener('close', (ev) => {
    const reason = ev.reason || (ev.code === 1006 ? 'the Core went away' : `code ${ev.code}`);
    onState('closed', reason);
    for (const h of closeHandlers) h(reason);
  });
  return {
    send: (m) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
      else if (ws.readyState === WebSocket.CONNECTING) queue.push(m);
      else throw new Error('the connection to the Core is closed');
    },
    onMessage: (h) => ws.addEventListener('message', (ev) => {
      if (ev.data instanceof ArrayBuffer) return h(new Uint8Array(ev.data));
      if (typeof ev.data !== 'string') return;
      try {
        h(JSON.parse(ev.data));
      } catch {
        /* not a wire message */
      }
    }),
    onClose: (h) => void closeHandlers.push(h),
  };
}

/** The page is served under /s/<token>/ (every asset request carries it); the socket sends the same token. */
function pageToken(): string {
  const m = /^\/s\/([^/]+)\//.exec(window.location.pathname);
  return m ? decodeURIComponent(m[1]!) : '';
}

/**
 * The person secret in the #fragment of the person link (`switchboard serve` shows it on its terminal, `switchboard
 * open` opens it; a browser never sends a fragment to a server). Kept for this tab so a reload is still the person's,
 * and wiped from the address bar.
 */
function personSecret(): string {
  const m = /(?:^#|&)approver=([^&]+)/.exec(window.location.hash);
  if (m) {
    sessionStorage.setItem('switchboard.approver', decodeURIComponent(m[1]!));
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem('switchboard.approver') ?? '';
}

/** Whether this page is a person's window (Electron's, or opened from a person link); otherwise it can only look. */
export function isPersonPage(): boolean {
  return window.switchboard !== undefined || personSecret() !== '';
}

export function connect(onState: StateListener): CoreClient {
  if (window.switchboard) {
    onState('open');
    return new CoreClient(bridgeLink(window.switchboard));
  }
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  onState('connecting');
  const approver = personSecret();
  const query = `token=${encodeURIComponent(pageToken())}${approver ? `&approver=${encodeURIComponent(approver)}` : ''}`;
  return new CoreClient(socketLink(`${proto}//${window.location.host}/ws?${query}`, onState));
}
