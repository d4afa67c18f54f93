// The approvals a person kept: "session" rules (this Core run, one runtime identity with one spec) in memory and
// "always" rules (one target name with one spec) in $SWITCHBOARD_HOME/approvals.json. A rule matches one tool and one
// normalised pattern, and only while the target's spec has the fingerprint it was made for (specFingerprint): a target
// replaced by another spec, a config target edited, is asked about again. A rule made before rules kept a fingerprint
// matches nothing and is listed as stale, to be revoked (or made again by answering Always allow).
import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { ApprovalRule } from '../../../shared/approvals.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';

const RulesFile = z.object({ version: z.literal(1), rules: z.array(ApprovalRule) });

/**
 * What a held call is matched on: where it runs (name, runtime identity, spec fingerprint), which tool, which
 * normalised pattern.
 */
export interface RuleKey {
  target: string;
  identity: string;
  fingerprint: string;
  tool: string;
  pattern: string;
}

export class ApprovalRules {
  readonly path: string;
  private readonly session = new Set<string>();
  private always: ApprovalRule[] = [];
  /** mtime+size of the file last read, so an edit by hand (or another Core) is seen. */
  private stamp = '';
  private problemLine: string | undefined;
  /** The stale marks last told to listeners. */
  private lastStale = '';
  private readonly listeners = new Set<(rules: ApprovalRule[]) => void>();

  /** `fingerprintOf`: the fingerprint of a target's spec now (undefined when it is gone), to mark rules stale. */
  constructor(
    home: string,
    private readonly fingerprintOf: (target: string) => string | undefined = () => undefined,
  ) {
    this.path = join(home, 'approvals.json');
    this.reload();
  }

  onChange(listener: (rules: ApprovalRule[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One line saying why approvals.json was not used, when it was malformed. */
  problem(): string | undefined {
    this.reload();
    return this.problemLine;
  }

  /** The always rules, each marked stale when it can match nothing now (no fingerprint, or not the target's spec). */
  list(): ApprovalRule[] {
    this.reload();
    return this.shown();
  }

  /** Tell listeners again when the targets changed: a rule may have turned stale (or fresh). */
  targetsChanged(): void {
    const stale = JSON.stringify(this.shown().map((r) => r.stale));
    if (stale !== this.lastStale) this.emit();
  }

  /** Which kept rule lets this call run unasked, if any. */
  match(key: RuleKey): 'session' | 'always' | undefined {
    if (this.session.has(sessionKey(key))) return 'session';
    this.reload();
    return this.always.some((r) => sameRule(r, key)) ? 'always' : undefined;
  }

  addSession(key: RuleKey): void {
    this.session.add(sessionKey(key));
  }

  addAlways(key: RuleKey, createdBy: string): ApprovalRule {
    this.reload();
    const existing = this.always.find((r) => sameRule(r, key));
    if (existing) return existing;
    // A command with a secret in it is kept redacted, matched by a salted hash: approvals.json never holds the secret.
    // (A huge one is cut before it is redacted, so it is kept by its hash too.)
    const shown = redact(key.pattern);
    const rule: ApprovalRule = {
      id: randomUUID().slice(0, 8),
      execution_target: key.target,
      tool: key.tool,
      pattern: shown,
      ...(shown !== key.pattern ? { pattern_hash: patternHash(key.pattern) } : {}),
      spec_fingerprint: key.fingerprint,
      created_at: new Date().toISOString(),
      created_by: createdBy,
    };
    this.save([...this.always, rule]);
    return rule;
  }

  revoke(id: string): void {
    this.reload();
    if (!this.always.some((r) => r.id === id)) {
      throw new SwitchboardError(
        'bad_request',
        `no approval rule ${id}`,
        'list them with `switchboard approvals rules`',
      );
    }
    this.save(this.always.filter((r) => r.id !== id));
  }

  private save(rules: ApprovalRule[]): void {
    if (this.problemLine) {
      // Never overwrite a file the person may want to repair: the rules in it would be lost.
      throw new SwitchboardError('bad_config', this.problemLine, `fix or remove ${this.path}`);
    }
    const tmp = `${this.path}.${process.pid}.${randomUUID().slice(0, 6)}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, rules }, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.path);
    this.always = rules;
    this.stamp = fileStamp(this.path);
    this.emit();
  }

  private reload(): void {
    const stamp = fileStamp(this.path);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const before = JSON.stringify(this.always);
    const { rules, problem } = readRules(this.path);
    this.always = rules;
    if (problem && problem !== this.problemLine) process.stderr.write(`switchboard: ${problem}\n`);
    this.problemLine = problem;
    if (JSON.stringify(rules) !== before) this.emit();
  }

  private shown(): ApprovalRule[] {
    return this.always.map((r) => ({
      ...r,
      stale: r.spec_fingerprint === undefined || r.spec_fingerprint !== this.fingerprintOf(r.execution_target),
    }));
  }

  private emit(): void {
    const rules = this.shown();
    this.lastStale = JSON.stringify(rules.map((r) => r.stale));
    for (const l of this.listeners) l(rules);
  }
}

/** An always rule covers a key: same target name, tool and pattern, made for the spec the target has now. */
function sameRule(r: ApprovalRule, k: RuleKey): boolean {
  if (
    r.spec_fingerprint === undefined ||
    r.spec_fingerprint !== k.fingerprint ||
    r.execution_target !== k.target ||
    r.tool !== k.tool
  )
    return false;
  return r.pattern_hash !== undefined ? hashMatches(r.pattern_hash, k.pattern) : r.pattern === k.pattern;
}

/** scrypt's cost for a kept pattern's hash: slow enough that guessing a short password costs, a match a few ms. */
const SCRYPT_COST = { N: 1 << 14, r: 8, p: 1 };

function patternHash(pattern: string, salt = randomBytes(16)): string {
  return `scrypt:${salt.toString('hex')}:${scryptSync(pattern, salt, 32, SCRYPT_COST).toString('hex')}`;
}

/** Patterns already found to match a hash, this run: a rule asked about again costs no scrypt. */
const matched = new Map<string, boolean>();

function hashMatches(hash: string, pattern: string): boolean {
  const key = `${hash}\0${pattern}`;
  const known = matched.get(key);
  if (known !== undefined) return known;
  const [kind, salt, want] = hash.split(':');
  let ok = false;
  if (kind === 'scrypt' && salt && want && /^[0-9a-f]+$/.test(salt) && /^[0-9a-f]{64}$/.test(want)) {
    ok = timingSafeEqual(
      Buffer.from(patternHash(pattern, Buffer.from(salt, 'hex')).split(':')[2]!, 'hex'),
      Buffer.from(want, 'hex'),
    );
  }
  if (matched.size > 1024) matched.clear();
  matched.set(key, ok);
  return ok;
}

function sessionKey(k: RuleKey): string {
  return JSON.stringify([k.identity, k.fingerprint, k.tool, k.pattern]);
}

function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    // no file: no rules
    return 'absent';
  }
}

/** The rules in approvals.json; a malformed file gives no rules and one line saying what is wrong. */
export function readRules(path: string): { rules: ApprovalRule[]; problem?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [] };
    return {
      rules: [],
      problem:
        `approvals.json cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); ` +
        `no "always allow" rules apply`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // the problem says so, in the window and in doctor
    return {
      rules: [],
      problem: 'approvals.json is not valid JSON; no "always allow" rules apply until it is fixed or removed',
    };
  }
  const parsed = RulesFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    return {
      rules: [],
      problem:
        `approvals.json is malformed${where}: ${issue?.message ?? 'unexpected shape'}; ` +
        `no "always allow" rules apply until it is fixed or removed`,
    };
  }
  // `stale` is worked out when rules are shown, never taken from the file.
  return { rules: parsed.data.rules.map(({ stale: _shown, ...rule }) => rule) };
}
