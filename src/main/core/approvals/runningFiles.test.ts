// Files that running commands will run: remembered where their links lead, in the language they are read as, until
// the command can no longer be running.
import { describe, expect, it } from 'vitest';
import { RunningFiles, runLanguageOf } from './runningFiles.js';

describe('runLanguageOf', () => {
  it.each([
    ['/w/x.py', undefined, 'python'],
    ['/w/x.mjs', undefined, 'node'],
    ['/w/x.rb', undefined, 'ruby'],
    ['/w/x.pl', undefined, 'perl'],
    ['/w/tool', '#!/usr/bin/env python3\n', 'python'],
    ['/w/x.sh', '#!/bin/sh\n', 'shell'],
    ['/w/Makefile', 'all:\n', 'shell'],
  ] as const)('%s (%j) → %s', (path, text, language) => expect(runLanguageOf(path, text)).toBe(language));
});

describe('RunningFiles', () => {
  const facts = {
    real: new Map([['/w/link.sh', '/w/real.sh']]),
    files: new Map([['/w/link.sh', { kind: 'text' as const, text: 'echo\n' }]]),
    git: new Map(),
  };
  const needs = { paths: new Set(['/w/link.sh']), files: new Set(['/w/link.sh']), git: new Set<string>() };

  it('remembers a run file where its link leads, for its identity, until the command is over', () => {
    const r = new RunningFiles();
    r.remember('a#1', facts, needs, 1_000);
    expect(r.languageOf('a#1', '/w/real.sh', 500)).toBe('shell');
    expect(r.languageOf('a#1', '/w/link.sh', 500)).toBeUndefined();
    expect(r.languageOf('b#1', '/w/real.sh', 500)).toBeUndefined();
    expect(r.languageOf('a#1', '/w/real.sh', 1_001)).toBeUndefined();
  });
});
