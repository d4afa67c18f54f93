// Electron entry: one sandboxed window wired to the Core; the Core also serves loopback clients (CLI, MCP).
import { app, BrowserWindow, session, shell } from 'electron';
import { join } from 'node:path';
import { startHost, type Host } from './transport/host.js';
import { attachWindow } from './transport/electron.js';
import { CSP } from './transport/wsServer.js';
import { errorLine, toErrorPayload } from '../shared/errors.js';

let host: Host | undefined;

async function createWindow(h: Host): Promise<void> {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    backgroundColor: '#0f1115',
    title: 'Switchboard',
    icon: join(__dirname, '../../assets/icon.png'),
    webPreferences: {
      preload: join(__dirname, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  const detach = attachWindow(h.core, win.webContents);
  win.on('closed', detach);
  // Links open in the user's browser; the window never navigates away from the app.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  await win.loadFile(join(__dirname, '../renderer/index.html'));
}

async function main(): Promise<void> {
  await app.whenReady();
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  try {
    host = await startHost({
      mode: 'electron',
      // The window's tabs and panes live in the profile, through electron-store (conf's API, Electron's paths).
      uiStore: async (home) => {
        const { default: Store } = await import('electron-store');
        return new Store<Record<string, unknown>>({ cwd: home, name: 'ui-state', clearInvalidConfig: true });
      },
    });
  } catch (err) {
    process.stderr.write(`switchboard: ${errorLine(toErrorPayload(err))}\n`);
    app.exit(1);
    return;
  }
  await createWindow(host);
  app.on('activate', () => {
    if (host && BrowserWindow.getAllWindows().length === 0) void createWindow(host);
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('will-quit', (e) => {
  if (!host) return;
  e.preventDefault();
  const h = host;
  host = undefined;
  void h.close().finally(() => app.exit(0));
});

void main();
