// Renderer entry: who the page is, then styles and the app. The Core connection opens when client/core is first
// imported, which is after the page has settled whether it is the person's (its socket carries the cookie then).
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './styles/app.css';
import { settlePersonPage } from './client/personPage.js';
import { watchTyping } from './typingQuiet.js';
import { setKeyHost } from './keyboard.js';

// First of all: a person link's code leaves the address bar and is traded for the person's cookie.
await settlePersonPage();
const { App } = await import('./App.js');

// From the start: a dialog that arrives unasked must know whether the person is typing.
watchTyping();
// A browser keeps some keys for itself (Ctrl+T, Ctrl+W, Ctrl+Tab…): its commands show the keys it leaves to the page.
setKeyHost(window.switchboard ? 'electron' : 'browser');
const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
