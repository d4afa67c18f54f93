// Remote state through vendor command lines (issue 42): a CLI in the table (remoteCliTable.ts) that is known to change
// the world beyond this machine asks for any verb not known only to read (or to touch only this machine), naming the
// CLI, the verb, what it touches and where. A production signal — a flag, namespace, project, stage, profile, context,
// kubeconfig, host or variable whose name says prod, production or live — is named in the reason, and raises a
// wholesale destroy of a production system (a namespace, a database, a project, a stack) to hardline. A CLI not in the
// table asks nothing because of this: a project's own scripts are not remote-state tools.
import type { Rule, RuleKit } from '../ruleKit.js';
import { isKnown, shown, type Arg, type CommandContext } from '../scanTypes.js';
import type { RuleId } from '../ruleIds.js';
import type { RuleExamples } from '../ruleKit.js';
import { remoteClis, type RemoteCli } from './remoteCliTable.js';

/** A word that says production: `prod`, `production`, `live`, `prd`, alone or between separators (`acme-prod`). */
export const prodWord = /(^|[^a-z0-9])(prod|production|live|prd)([^a-z0-9]|$)/i;

/** Variables whose value names where a command acts. */
const scopeVars = new RegExp(
  '^(RAILS_ENV|RACK_ENV|NODE_ENV|APP_ENV|MIX_ENV|FLASK_ENV|DJANGO_ENV|DJANGO_SETTINGS_MODULE|ENVIRONMENT|ENV|STAGE|' +
    'AWS_PROFILE|AWS_DEFAULT_PROFILE|CLOUDSDK_CORE_PROJECT|GOOGLE_CLOUD_PROJECT|KUBECONFIG|KUBECONTEXT|TF_WORKSPACE|' +
    'PULUMI_STACK|HEROKU_APP|FLY_APP|PGHOST|MYSQL_HOST|REDIS_HOST|DATABASE_URL|AZURE_SUBSCRIPTION_ID)$',
);

/**
 * The production signal of a command, as the reason names it (`--context prod-eu`, `TF_WORKSPACE=prod`, `acme-prod`),
 * or undefined: a variable assigned for the command or earlier in it, then an option's value or an operand.
 */
export function productionSignal(argv: Arg[], c: CommandContext): string | undefined {
  for (const vars of [c.env, c.scope.vars, c.scope.state.chosen])
    for (const [k, v] of vars ?? []) if (scopeVars.test(k) && prodWord.test(v)) return `${k}=${v}`;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (!isKnown(a)) continue;
    const inline = /^(--?[\w-]+)=(.+)$/.exec(a.value);
    if (inline && prodWord.test(inline[2]!)) return a.value;
    if (a.value.startsWith('-')) {
      if (/^--(prod|production)$/.test(a.value)) return a.value;
      continue;
    }
    if (prodWord.test(a.value)) {
      const prev = argv[i - 1]?.value;
      return prev?.startsWith('-') && !prev.includes('=') ? `${prev} ${a.value}` : a.value;
    }
  }
  return undefined;
}

interface Parsed {
  /** The positional words, with the Arg each came from. */
  words: Arg[];
  flags: string[];
  /** Values of the scope options (namespace, project, …), as `--flag value`. */
  scope: string[];
}

function parse(spec: RemoteCli, args: Arg[]): Parsed {
  const out: Parsed = { words: [], flags: [], scope: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (v === '--') {
      out.words.push(...args.slice(i + 1));
      break;
    }
    if (!v.startsWith('-') || v === '-') {
      out.words.push(a);
      continue;
    }
    out.flags.push(v);
    const eq = v.indexOf('=');
    const name = eq > 0 ? v.slice(0, eq) : v;
    const takes = spec.values?.test(name) || spec.scope?.test(name);
    const value = eq > 0 ? v.slice(eq + 1) : takes ? args[++i]?.value : undefined;
    if (spec.scope?.test(name) && value !== undefined) out.scope.push(`${name} ${shown({ ...a, value })}`);
  }
  return out;
}

/** The verb: the words up to the first that is a verb of the table, or the first one or two words. */
function verbOf(spec: RemoteCli, words: Arg[]): { verb: string; rest: Arg[] } {
  const w = words.map((a) => (isKnown(a) ? a.value : '…'));
  const depth = typeof spec.depth === 'function' ? spec.depth(w) : (spec.depth ?? 1);
  if (spec.verbs) {
    const at = w.findIndex((x) => spec.verbs!.test(x));
    const end = at < 0 ? Math.min(w.length, depth) : at + 1;
    return { verb: w.slice(0, end).join(' '), rest: words.slice(end) };
  }
  return { verb: w.slice(0, depth).join(' '), rest: words.slice(depth) };
}

/** The rule of one CLI of the table; `also` is a rule of its own it keeps (kubectl's secrets, vault's reads). */
export function remoteCli(name: string, also?: Rule): Rule {
  const spec = remoteClis[name]!;
  return (argv, c, kit) => {
    const before = c.scope.state.findings.length;
    const produced = also?.(argv, c, kit);
    if (c.scope.state.findings.length > before) return produced;
    judge(name, spec, argv, c, kit);
    return produced;
  };
}

function judge(name: string, spec: RemoteCli, argv: Arg[], c: CommandContext, kit: RuleKit): void {
  const p = parse(spec, argv.slice(1));
  if (p.flags.some((f) => /^(-h|--help|--version|-v)$/.test(f) && !spec.values?.test(f))) return;
  if (spec.local?.(argv, p.flags)) return;
  const { verb, rest } = verbOf(spec, p.words);
  const chosen = spec.chooses?.(verb, argv, rest);
  if (chosen) (c.scope.state.chosen ??= new Map()).set(...chosen);
  const prodFlag = spec.production ? p.flags.find((f) => spec.production!.test(f)) : undefined;
  const dry = spec.dryRun ? p.flags.some((f) => spec.dryRun!.test(f)) : false;
  if (dry) return;
  const reads = verb === '' ? spec.bare !== 'changes' : spec.reads.test(verb) && !spec.writes?.(verb, argv, rest);
  if (reads && !prodFlag) return;
  const what = spec.what?.(argv, rest) ?? (rest[0] ? shown(rest[0]) : undefined);
  const where = p.scope.length ? ` (${p.scope.join(', ')})` : '';
  const prod = prodFlag ?? productionSignal(argv, c);
  const cmd = `${name} ${verb}`.trim();
  const destroys =
    typeof spec.destroys === 'function' ? spec.destroys(verb, argv, rest) : (spec.destroys?.test(verb) ?? false);
  if (prod && destroys)
    return kit.emit(
      c,
      'hardline',
      'remote.destroy',
      `destroys a production system: ${cmd}${what ? ` ${what}` : ''} deletes ${spec.touches}${where}, in production ` +
        `(${prod})`,
    );
  const deletes = spec.deletes?.test(verb) || destroys;
  // A control opened to anyone: a firewall rule from 0.0.0.0/0, a bucket for allUsers, a public ACL or repository.
  const open = argv.find((a) =>
    /(^|[=:,\s])(0\.0\.0\.0\/0|::\/0|allUsers|allAuthenticatedUsers|public-read(-write)?)\b/.test(a.value),
  );
  const opened = open
    ? `, open to anyone (${shown(open)})`
    : argv.some((a) => a.value === 'public') &&
        /visibility|edit|access/.test(`${verb} ${argv.map((a) => a.value).join(' ')}`)
      ? ', made public'
      : '';
  const rule: RuleId = deletes ? (spec.deleteRule ?? 'cloud.destroy') : 'remote.change';
  const does = deletes ? `deletes ${spec.deleteNoun ?? 'cloud or cluster resources'}` : `changes ${spec.touches}`;
  kit.emit(
    c,
    'dangerous',
    rule,
    `${does}${what ? `: ${what}` : ''} (${cmd})${where}${opened}${prod ? `, in production (${prod})` : ''}`,
  );
}

/** Every CLI of the table as a rule, except those whose rule lives with another family and calls remoteCli. */
export function remoteRules(except: ReadonlySet<string>): Record<string, Rule> {
  return Object.fromEntries(
    Object.keys(remoteClis)
      .filter((n) => !except.has(n))
      .map((n) => [n, remoteCli(n)]),
  );
}

export const remoteExamples: RuleExamples = {
  'remote.change': {
    match: [
      'gh release create v1.2.0',
      'terraform apply -auto-approve',
      'kubectl apply -f deploy.yaml',
      'vercel --prod',
      'ansible-playbook -i hosts site.yml',
    ],
    notMatch: ['gh pr list', 'terraform plan', 'kubectl get pods', 'vercel', 'ansible-playbook site.yml --check'],
  },
  'remote.destroy': {
    match: [
      'kubectl delete namespace production',
      'terraform destroy -auto-approve -var-file=prod.tfvars',
      'gcloud projects delete acme-prod',
      'heroku apps:destroy --app acme-production',
    ],
    notMatch: [
      'kubectl delete pod web-1 -n production',
      'terraform destroy -var-file=staging.tfvars',
      'kubectl delete ns dev',
    ],
  },
};
