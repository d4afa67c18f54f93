// Keeps docs/style.md §3 and §9 true: backend and tool names (and backend spec keys) appear only where declared.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { toolNames } from './shared/tools.js';
import { builtinSpecs } from './main/core/backends/builtinSpecs.js';

const src = join(__dirname);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(f) ? [p] : [];
  });
}

/** Where the names may stand, and why. Everything else must read the declarations. */
const owners: Array<[RegExp, string]> = [
  [/^main\/core\/backends\/(local|ssh|docker)\//, 'the provider folders declare their backend'],
  [/^main\/core\/tools\//, 'the ToolDefs declare their tools'],
  [
    new RegExp(
      String.raw`\.test\.ts$|^main\/core\/tools\/(testCore|toolsSuite)\.ts$|` +
        String.raw`^main\/core\/approvals\/testRunAttacks\.ts$|registryRaceWorker\.ts$`,
    ),
    'tests and their helpers',
  ],
  [/^main\/core\/config\/loadConfig\.ts$/, 'the default config: a `local` target when config.yaml names none'],
  [/^shared\/tools\.ts$/, 'the contract: argument schemas by tool name, and the execute_code client label'],
  [/^shared\/toolResult\.ts$/, "the contract's tool names and client labels, for clients that need no tool's schemas"],
  [/^main\/core\/dispatch\/dispatcher\.ts$/, 'nested calls are labelled with the execute_code client'],
  [
    /^main\/core\/sandbox\/(denyTable|sandboxPolicy)\.ts$/,
    "the sandbox's tables name programs and files by their own names: the `docker` program whose config a row " +
      'holds, /etc/ssh/ssh_host_* keys',
  ],
  [/^shared\/personWay\.ts$/, "how a person is known: at a `'terminal'` of their own (a PersonWay, not the tool)"],
  [
    /^main\/core\/approvals\/policy\//,
    'the command policy judges programs, options, files and code by their own names: ' +
      'the `docker` program a shell runs, pkill --terminal, /etc/ssh/ssh_host_* keys, ' +
      "JavaScript's process global",
  ],
];

/** The text of a file without comments (so prose may name things), line structure kept. */
function code(text: string): string[] {
  const noBlocks = text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '));
  return noBlocks.split('\n').map((l) => l.replace(/(^|\s)\/\/.*$/, '$1'));
}

function offenders(): string[] {
  const names = [...builtinSpecs.map((s) => s.backend), ...toolNames];
  const literal = new RegExp(`(['"\`])(${names.join('|')})\\1`);
  const keyPrefixes = builtinSpecs
    .flatMap((s) => s.fields.map((f) => f.key))
    .filter((k) => k.includes('_'))
    .map((k) => k.split('_')[0]!);
  const specKey = new RegExp(`\\b(${[...new Set(keyPrefixes)].join('|')})_[a-z]`);
  const found: string[] = [];
  for (const file of files(src)) {
    const rel = relative(src, file);
    if (owners.some(([re]) => re.test(rel))) continue;
    code(readFileSync(file, 'utf8')).forEach((line, i) => {
      const hit = literal.exec(line)?.[0] ?? specKey.exec(line)?.[0];
      if (hit) found.push(`${rel}:${i + 1}: ${hit}`);
    });
  }
  return found;
}

describe('declared once', () => {
  it('no code outside the owners names a backend, a tool or a backend spec key', () => {
    expect(offenders()).toEqual([]);
  });

  it('the scan sees what it looks for (a name in code, not in a comment)', () => {
    expect(code("const a = 'ssh'; // 'docker'\n/* 'terminal' */ b")).toEqual([
      "const a = 'ssh'; ",
      '                 b',
    ]);
  });
});
