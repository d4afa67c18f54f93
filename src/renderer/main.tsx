// Renderer entry: styles, then the app. The Core connection opens when client/core is first imported.
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './styles/app.css';
import { App } from './App.js';
import { watchTyping } from './typingQuiet.js';
import { setKeyHost } from './keyboard.js';

// From the start: a dialog that arrives unasked must know whether the person is typing.
watchTyping();
// A browser keeps some keys for itself (Ctrl+T, Ctrl+W, Ctrl+Tab…): its commands show the keys it leaves to the page.
setKeyHost(window.switchboard ? 'electron' : 'browser');
const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
