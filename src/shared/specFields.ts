// How a backend declares its spec fields once; the spec schema, the Add-target form, CLI flags and secret checks derive
// from it.
import * as z from 'zod';
// The larger schemas are z.lazy: built on first use, so a process that never parses one (`switchboard call`) does not
// build it; z.lazy accepts exactly what the schema inside accepts.
import { ProviderFlags } from './targets.js';
import { splitCommandWords } from './commandWords.js';

/**
 * What a field holds. `path` is a file or directory on the machine that reads it; `secret_ref` is the name of an
 * environment variable that holds a secret (never the secret); `list` is strings; `map` is NAME → string; `sandbox`
 * is a local target's OS sandbox setting (SandboxSetting); `command` is a program and its arguments on one line
 * (`zsh -l`), split into words as a shell would, without expanding anything (commandWords.ts).
 */
export const SpecFieldType = z.enum([
  'boolean',
  'number',
  'string',
  'text',
  'select',
  'list',
  'map',
  'path',
  'secret_ref',
  'sandbox',
  'command',
]);
export type SpecFieldType = z.infer<typeof SpecFieldType>;

/** One declared spec field, as the wire carries it (`backends.list`). */
export const SpecFieldInfo = z.lazy(() =>
  z.object({
    key: z.string().regex(/^[a-z][a-z0-9_]*$/),
    type: SpecFieldType,
    /** What a person reads next to the input ("Host"). */
    label: z.string(),
    /** One sentence of help: what the value is. */
    help: z.string(),
    /** The `targets register` flag that sets it (`--host`), if it has one besides `--set key=value`. */
    flag: z
      .string()
      .regex(/^--[a-z][a-z0-9-]*$/)
      .optional(),
    required: z.boolean(),
    /** What applies when the field is left out (informational; the backend applies it). */
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    /** The value points at a secret (a key file, an environment variable) and is never the secret itself. */
    secret_ref: z.boolean(),
    /** Left out of every listing (names that say where a secret lives, env values). */
    private: z.boolean(),
    /** Shown under "More options" in the form. */
    advanced: z.boolean(),
    placeholder: z.string().optional(),
    /** The choices of a `select`. */
    options: z.array(z.string()).optional(),
    /** Bounds of a `number`. */
    integer: z.boolean().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    /** `min` is exclusive (a positive number). */
    min_exclusive: z.boolean().optional(),
    /** A regular expression a string value (a map: each name) must match, and what to say when it does not. */
    pattern: z.string().optional(),
    pattern_message: z.string().optional(),
  }),
);
export type SpecFieldInfo = z.infer<typeof SpecFieldInfo>;

/** One backend as `backends.list` serves it: its flags and declared fields. */
export const BackendInfo = z.lazy(() =>
  z.object({
    backend: z.string(),
    /** What the window and doctor call it ("Docker", "Bubblewrap sandbox"); the backend name when absent. */
    display_name: z.string().optional(),
    /** The plugin that adds it; absent for a built-in. */
    plugin: z.string().optional(),
    flags: ProviderFlags,
    /** Its targets can be written from `user@host:port` (targets.quickSpec): the form's Quick connect is for it. */
    quick_connect: z.boolean().optional(),
    fields: z.array(SpecFieldInfo),
    /** Groups of keys of which a spec sets exactly one (docker_image | docker_container). */
    exactly_one: z.array(z.array(z.string())),
  }),
);
export type BackendInfo = z.infer<typeof BackendInfo>;

/** A field as written in a declaration: the booleans default to false. */
export type SpecFieldDecl = Omit<SpecFieldInfo, 'required' | 'secret_ref' | 'private' | 'advanced'> &
  Partial<Pick<SpecFieldInfo, 'required' | 'secret_ref' | 'private' | 'advanced'>>;

/** Fields every backend has. */
export const commonFields = [
  {
    key: 'cwd',
    type: 'path',
    label: 'Working directory',
    help: 'the directory commands start in',
    flag: '--cwd',
    placeholder: '~/project',
  },
  {
    key: 'timeout',
    type: 'number',
    label: 'Timeout (s)',
    help: 'default command timeout in seconds',
    flag: '--timeout',
    integer: true,
    min: 0,
    min_exclusive: true,
    max: 86_400,
    advanced: true,
  },
] as const satisfies readonly SpecFieldDecl[];

/** A path a sandbox setting names: one line, `~` for the home. */
const sandboxPath = z
  .string()
  .min(1)
  .refine((v) => !/[\r\n\0]/.test(v), 'a path is one line');

/**
 * Where a target's agent work runs: `off` (unsandboxed, with the person's own powers), or the OS sandbox with writes
 * only in the workspace (the target's cwd tree), its private /tmp and `writable`, never in the deny-write table nor
 * `deny_write`; `network: false` cuts the network, otherwise traffic leaves through the Core's proxy, to any public
 * host or only `allow_hosts` (`example.com`; `*.example.com`, its subdomains but not example.com itself; an address,
 * matched only when asked for directly), and reaches this machine's loopback only on `allow_local_ports`.
 * `max_processes` and `max_memory_mb` bound the whole sandbox. Absent means `{ mode: workspace, network: true }`. A
 * misspelt key is an error naming it (strict object).
 */
export const SandboxSetting = z.union(
  [
    z.literal('off'),
    z.strictObject({
      mode: z.literal('workspace').optional(),
      writable: z.array(sandboxPath).optional(),
      network: z.boolean().optional(),
      allow_local_ports: z.array(z.number().int().min(1).max(65_535)).optional(),
      allow_hosts: z
        .array(
          z
            .string()
            .regex(
              /^\*$|^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^[0-9a-fA-F:.]+$/,
              'a host is a name (example.com), a wildcard (*.example.com), an address, or * (any public host)',
            ),
        )
        .optional(),
      deny_write: z.array(sandboxPath).optional(),
      max_processes: z.number().int().min(16).max(1_000_000).optional(),
      max_memory_mb: z.number().int().min(64).optional(),
    }),
  ],
  {
    error:
      'sandbox is off or { mode: workspace, writable: [paths], network: true|false, allow_local_ports: [ports], ' +
      'allow_hosts: [hosts], deny_write: [paths], max_processes: N, max_memory_mb: N }',
  },
);
export type SandboxSetting = z.infer<typeof SandboxSetting>;

type FieldValue<F> = F extends { type: 'boolean' }
  ? boolean
  : F extends { type: 'sandbox' }
    ? SandboxSetting
    : F extends { type: 'number' }
      ? number
      : F extends { type: 'list' }
        ? string[]
        : F extends { type: 'map' }
          ? Record<string, string>
          : string;
type Flatten<T> = { [K in keyof T]: T[K] };
type FieldsShape<F extends readonly SpecFieldDecl[]> = {
  [D in F[number] as D extends { required: true } ? D['key'] : never]: FieldValue<D>;
} & { [D in F[number] as D extends { required: true } ? never : D['key']]?: FieldValue<D> };

/** The spec type a declaration describes. */
export type SpecOf<B extends string, F extends readonly SpecFieldDecl[]> = Flatten<
  { backend: B } & FieldsShape<F> & FieldsShape<typeof commonFields>
>;

/** A path must be one line: a key file's content pasted into a path field is refused without echoing it. */
export function pathProblem(field: Pick<SpecFieldInfo, 'key' | 'secret_ref'>, value: string): string | undefined {
  if (!/[\r\n]/.test(value) && value.length <= 4096) return undefined;
  return field.secret_ref
    ? `${field.key} must be the path of a key file, not the key itself`
    : `${field.key} must be a path (one line)`;
}

/** The zod schema of one field's value. */
export function fieldSchema(f: SpecFieldInfo): z.ZodType {
  switch (f.type) {
    case 'boolean':
      return z.boolean();
    case 'number': {
      let n = z.number();
      if (f.integer) n = n.int();
      if (f.min !== undefined) n = f.min_exclusive ? n.gt(f.min) : n.min(f.min);
      if (f.max !== undefined) n = n.max(f.max);
      return n;
    }
    case 'select':
      return z.enum((f.options ?? []) as [string, ...string[]]);
    case 'list':
      return z.array(z.string().min(1));
    case 'map': {
      const map = z.record(z.string(), z.string());
      const pattern = f.pattern === undefined ? undefined : new RegExp(f.pattern);
      if (!pattern) return map;
      // A name that does not match is named; a value never is (it may be a secret).
      return map.superRefine((m, ctx) => {
        for (const name of Object.keys(m))
          if (!pattern.test(name))
            ctx.addIssue({ code: 'custom', path: [name], message: f.pattern_message ?? `${name} is not a valid name` });
      });
    }
    case 'command':
      return z.string().superRefine((v, ctx) => {
        const split = splitCommandWords(v);
        if (!split.ok) ctx.addIssue({ code: 'custom', message: `${f.key} ${split.problem}` });
      });
    case 'secret_ref':
      return z
        .string()
        .regex(
          new RegExp(f.pattern ?? '^[A-Za-z_][A-Za-z0-9_]*$'),
          f.pattern_message ?? `${f.key} is the name of an environment variable`,
        );
    case 'path':
      return z
        .string()
        .min(1)
        .superRefine((v, ctx) => {
          const problem = pathProblem(f, v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        });
    case 'sandbox':
      return SandboxSetting;
    case 'string':
    case 'text': {
      const s = z.string().min(1);
      return f.pattern ? s.regex(new RegExp(f.pattern), f.pattern_message) : s;
    }
  }
}

/** A declaration's fields with every default filled in, common fields last. */
export function fieldInfos(fields: readonly SpecFieldDecl[]): SpecFieldInfo[] {
  return [...fields, ...commonFields].map((f) => ({
    required: false,
    secret_ref: f.type === 'secret_ref',
    private: false,
    advanced: false,
    ...f,
  }));
}

/** The strict spec schema the fields describe (unknown keys are an error), with the exactly-one groups checked. */
export function specSchemaOf(
  backend: string,
  fields: readonly SpecFieldInfo[],
  exactlyOne: readonly (readonly string[])[] = [],
): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = { backend: z.literal(backend) };
  for (const f of fields) shape[f.key] = f.required ? fieldSchema(f) : fieldSchema(f).optional();
  const schema = z.strictObject(shape);
  if (exactlyOne.length === 0) return schema as z.ZodType<Record<string, unknown>>;
  return schema.superRefine((spec, ctx) => {
    for (const group of exactlyOne) {
      if (group.filter((k) => (spec as Record<string, unknown>)[k] !== undefined).length !== 1) {
        ctx.addIssue({ code: 'custom', message: `a ${backend} target needs exactly one of ${group.join(' or ')}` });
      }
    }
  }) as unknown as z.ZodType<Record<string, unknown>>;
}

/** One backend's spec, declared: its fields, the schema derived from them, and a one-line summary of a spec. */
export interface SpecDeclaration<S extends Record<string, unknown> = Record<string, unknown>> {
  readonly backend: string;
  readonly fields: readonly SpecFieldInfo[];
  readonly exactly_one: readonly (readonly string[])[];
  readonly specSchema: z.ZodType<S>;
  /** Where a target points, in a few words (`agent@compute:22`, `python:3.12`); '' when there is nothing to say. */
  describe(spec: Readonly<Record<string, unknown>>): string;
}

/** Declare a backend's spec once; the spec type follows from the field declarations. */
export function declareSpec<const B extends string, const F extends readonly SpecFieldDecl[]>(decl: {
  backend: B;
  fields: F;
  exactly_one?: readonly (readonly F[number]['key'][])[];
  describe: (spec: Readonly<SpecOf<B, F>>) => string;
}): SpecDeclaration<SpecOf<B, F>> {
  const fields = fieldInfos(decl.fields);
  const exactlyOne = decl.exactly_one ?? [];
  return {
    backend: decl.backend,
    fields,
    exactly_one: exactlyOne,
    specSchema: specSchemaOf(decl.backend, fields, exactlyOne) as unknown as z.ZodType<SpecOf<B, F>>,
    describe: (spec) => decl.describe(spec as SpecOf<B, F>),
  };
}
