import { describe, expect, it } from 'vitest';
import { summarizeArgs } from './audit.js';
import { writeFileTool } from '../tools/writeFile.js';

describe('summarizeArgs', () => {
  it('summarizes a write without its content', () => {
    expect(summarizeArgs(writeFileTool, { path: 'a.env', content: 'SECRET=1' })).toBe('a.env (8 chars)');
  });
});

