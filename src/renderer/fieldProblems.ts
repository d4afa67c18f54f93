// What a form says about values its schema refused, in the words of the form: per field, under the field ("CPUs must
// be a number, like 1.5"), instead of a schema's path and message ("docker_cpus: Invalid input: expected number").
import type { z } from 'zod';
import type { SpecFieldInfo } from '../shared/specFields.js';
import { formatZodError } from '../shared/errors.js';

export interface FormProblems {
  /** One sentence per field key. */
  byField: Record<string, string>;
  /** What belongs to no single field (a group needing exactly one of its keys). */
  other: string[];
}

type Issue = z.core.$ZodIssue;

const sentence = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function example(f: SpecFieldInfo): string {
  if (f.placeholder && /^-?\d+(\.\d+)?$/.test(f.placeholder)) return f.placeholder;
  return f.integer ? '2' : '1.5';
}

function bound(issue: Issue & { code: 'too_small' | 'too_big' }): string {
  const n = String(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  if (issue.code === 'too_small') return issue.inclusive === false ? `more than ${n}` : `at least ${n}`;
  return issue.inclusive === false ? `less than ${n}` : `at most ${n}`;
}

/** One field's problem, said with its label. */
export function fieldProblem(f: SpecFieldInfo, issue: Issue, value: unknown): string {
  const label = f.label;
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return `${label} is required`;
      if (issue.expected === 'int') return `${label} must be a whole number, like ${example(f)}`;
      if (f.type === 'number') return `${label} must be a number, like ${example(f)}`;
      if (f.type === 'list') return `${label} takes one entry per line`;
      if (f.type === 'map') return `${label} takes one NAME=value per line`;
      return `${label} is not valid here`;
    case 'too_small':
    case 'too_big':
      if (f.type === 'number') return `${label} must be ${bound(issue)}`;
      return issue.code === 'too_small' ? `${label} is required` : `${label} is too long`;
    case 'invalid_value':
      return f.options?.length
        ? `${label} must be one of ${f.options.join(', ')}`
        : `${label} is not one of the choices`;
    default:
      // A rule of the field's own (a path, a variable name): its message already says what is wrong.
      return sentence(issue.message);
  }
}

/** The issues of a refused form (its values as sent), sorted by the fields they belong to. */
export function formProblems(
  error: z.ZodError,
  fields: readonly SpecFieldInfo[],
  values: Readonly<Record<string, unknown>>,
): FormProblems {
  const out: FormProblems = { byField: {}, other: [] };
  for (const issue of error.issues) {
    const key = issue.path[0];
    const f = typeof key === 'string' ? fields.find((x) => x.key === key) : undefined;
    if (!f) out.other.push(sentence(formatZodError({ issues: [issue] } as z.ZodError)));
    else out.byField[f.key] ??= fieldProblem(f, issue, values[f.key]);
  }
  return out;
}
