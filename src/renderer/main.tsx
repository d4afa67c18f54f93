// Renderer entry: styles, then the app. The Core connection opens when client/core is first imported.
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './styles/app.css';
import { App } from './App.js';
import { watchTyping } from './typingQuiet.js';

// From the start: a dialog that arrives unasked must know whether the person is typing.
watchTyping();
const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
