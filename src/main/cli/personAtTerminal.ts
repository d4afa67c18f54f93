// Whether this CLI runs for a person at a terminal of their own, and a [y/N] question to them: what the commands that
// widen what agent work may do (plugins, a weaker sandbox) share.
import { createInterface } from 'node:readline';
import { personRefusal } from '../transport/approverCheck.js';

/** Whether a person can answer here: stdin is a terminal. */
export function atTerminal(): boolean {
  return process.stdin.isTTY === true;
}

/**
 * Why this process is not a person's, judged by itself (for when no Core runs to judge it, transport/approverCheck.ts):
 * stdin a terminal, and the process at a terminal of its own, outside every agent sandbox and tool call. Undefined
 * when it is a person's.
 */
export function selfPersonRefusal(): string | undefined {
  if (!atTerminal()) return 'stdin is not a terminal here';
  return personRefusal(process.pid);
}

/** One line from the terminal ('' when stdin ends first). */
export function readAnswer(prompt: string, out: NodeJS.WritableStream): Promise<string> {
  return new Promise((done) => {
    const rl = createInterface({ input: process.stdin, output: out, terminal: false });
    out.write(prompt);
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      done(line);
    });
    rl.once('close', () => {
      if (!answered) done('');
    });
  });
}

/** `question [y/N] `: yes only for y or yes. */
export async function askYes(question: string, out: NodeJS.WritableStream): Promise<boolean> {
  return /^y(es)?$/i.test((await readAnswer(`${question} [y/N] `, out)).trim());
}
