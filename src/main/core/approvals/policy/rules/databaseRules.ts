// Databases reset through a framework, where no SQL is in sight: `prisma migrate reset`, `rails db:drop`, `manage.py
// flush`, `alembic downgrade base` and their kin drop or empty a database. Aimed at the test environment (its variable
// or flag says test) they are everyday and ask nothing.
import { parseOptions } from '../options.js';
import type { Rule, RuleExamples } from '../ruleKit.js';
import type { Arg, CommandContext } from '../scanTypes.js';
import { dotnetNuget } from './packageRules.js';
import { prodWord, remoteCli } from './remoteRules.js';

/** What a framework's verb does to the database, by tool; matched against the verb words joined by spaces. */
type Resets = [verbs: RegExp, does: string][];

const railsTasks: Resets = [
  [/^db:drop(:all)?(?=\s|$)/, 'drops the database'],
  [/^db:(reset|migrate:reset|setup)(?=\s|$)/, 'drops the database and creates it again'],
  [/^db:(schema|structure):load(?=\s|$)/, 'loads the schema over the database, dropping its tables'],
  [/^db:purge(:all)?(?=\s|$)/, 'empties the database'],
  [/^db:truncate_all(?=\s|$)/, 'empties every table'],
  [/^db:seed:replant(?=\s|$)/, 'empties every table'],
];

const resets: Record<string, Resets> = {
  prisma: [
    [/^migrate reset(?=\s|$)/, 'drops the database and creates it again'],
    [/^db push .*--(force-reset|accept-data-loss)(?=\s|$)/, 'drops what the schema no longer has, data too'],
  ],
  'drizzle-kit': [[/^push .*--force(?=\s|$)/, 'applies schema changes that lose data without asking']],
  rails: railsTasks,
  rake: railsTasks,
  'manage.py': [
    [/^flush(?=\s|$)/, 'empties every table'],
    [/^reset_db(?=\s|$)/, 'drops the database and creates it again'],
    [/^migrate \S+ zero(?=\s|$)/, 'unapplies every migration of an app, dropping its tables'],
  ],
  sequelize: [
    [/^db:drop(?=\s|$)/, 'drops the database'],
    [/^db:migrate:undo:all(?=\s|$)/, 'undoes every migration, dropping their tables'],
    [/^db:seed:undo:all(?=\s|$)/, 'deletes every seeded row'],
  ],
  knex: [[/^migrate:rollback .*--all(?=\s|$)/, 'rolls back every migration, dropping their tables']],
  alembic: [[/^downgrade base(?=\s|$)/, 'downgrades to an empty schema, dropping every table']],
  flask: [[/^db downgrade base(?=\s|$)/, 'downgrades to an empty schema, dropping every table']],
  typeorm: [[/^schema:drop(?=\s|$)/, 'drops every table']],
  mix: [
    [/^ecto\.(drop|reset)(?=\s|$)/, 'drops the database'],
    [/^ecto\.rollback .*--all(?=\s|$)/, 'rolls back every migration'],
  ],
  artisan: [
    [/^migrate:(fresh|refresh)(?=\s|$)/, 'drops every table and migrates again'],
    [/^migrate:reset(?=\s|$)/, 'rolls back every migration'],
    [/^db:wipe(?=\s|$)/, 'drops every table'],
  ],
  supabase: [[/^db reset(?=\s|$)/, 'drops the database and creates it again']],
  dotnet: [
    [/^ef database drop(?=\s|$)/, 'drops the database'],
    [/^ef database update 0(?=\s|$)/, 'rolls back every migration'],
  ],
  diesel: [[/^database (reset|drop)(?=\s|$)/, 'drops the database']],
  sqlx: [[/^database (drop|reset)(?=\s|$)/, 'drops the database']],
  dbmate: [[/^drop(?=\s|$)/, 'drops the database']],
  goose: [
    [/^reset(?=\s|$)/, 'rolls back every migration'],
    [/^down-to 0(?=\s|$)/, 'rolls back every migration'],
  ],
  migrate: [
    [/^drop(?=\s|$)/, 'drops everything in the database'],
    [/^down( -all)?(?=\s|$)/, 'rolls back every migration'],
  ],
};
resets['django-admin'] = resets['manage.py']!;
resets['sequelize-cli'] = resets.sequelize!;
resets['typeorm-ts-node-commonjs'] = resets.typeorm!;
resets['typeorm-ts-node-esm'] = resets.typeorm!;
resets.flyway = [[/^clean(?=\s|$)/, 'drops every object in the schemas']];
resets.liquibase = [[/^drop-all(?=\s|$)/, 'drops every object in the database']];

/** Variables and flags that name a framework's environment. */
const envVars = /^(RAILS_ENV|RACK_ENV|NODE_ENV|APP_ENV|MIX_ENV|FLASK_ENV|DJANGO_ENV|ENVIRONMENT|ENV|STAGE)$/;
const envFlag = /^(-e|--env|--environment|-E)$/;

/**
 * The environment a framework command is aimed at, if the command says: `RAILS_ENV=test …`, `rake db:drop
 * RAILS_ENV=test`, `--env test`, `-e test`, `DJANGO_SETTINGS_MODULE=app.settings.test`, `--settings=…`.
 */
export function aimedAt(argv: Arg[], c: CommandContext): string | undefined {
  // Assigned for this command alone, or earlier in the same command line (`export RAILS_ENV=…; rails …`).
  for (const vars of [c.env, c.scope.vars])
    for (const [k, v] of vars ?? []) if (envVars.test(k) || k === 'DJANGO_SETTINGS_MODULE') return v;
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    const assign = /^([A-Z_]+)=(.*)$/.exec(v);
    if (assign && envVars.test(assign[1]!)) return assign[2];
    const inline = /^(?:--env|--environment|--settings)=(.+)$/.exec(v);
    if (inline) return inline[1];
    if ((envFlag.test(v) || v === '--settings') && argv[i + 1]) return argv[i + 1]!.value;
  }
  return undefined;
}

/** A test environment, whose database is made to be thrown away. */
export function testEnvironment(env: string | undefined): boolean {
  return env !== undefined && /(^|[._/-])(test|tests|testing)($|[._/-])/i.test(env);
}

const framework =
  (label: string): Rule =>
  (argv, c, kit) => {
    if (label === 'dotnet') dotnetNuget(argv, c, kit);
    if (label === 'mix' && argv.some((a) => a.value === 'hex.publish'))
      kit.emit(c, 'dangerous', 'publish.package', 'publishes the package here on hex.pm, in public (mix hex.publish)');
    // golang-migrate's and goose's options are long names with one dash (`-path db -database URL`, `-dir db`).
    const args = argv
      .slice(1)
      .filter((_a, i, all) => !/^-(path|database|source|dir|table|dsn)$/.test(all[i - 1]?.value ?? ''));
    const ops = parseOptions(args, {
      shortValue: 'eEdc',
      longValue: ['env', 'environment', 'settings', 'schema', 'config', 'dir', 'database', 'connection', 'path'],
    }).operands.filter((a) => !/^-(path|database|source|dir|table|dsn)$/.test(a.value));
    const flags = args.filter((a) => a.value.startsWith('-')).map((a) => a.value);
    const words = ops.filter((a) => !/^[A-Z_]+=/.test(a.value)).map((a) => a.value);
    for (let i = 0; i < words.length; i++) {
      const text = [...words.slice(i), ...flags].join(' ');
      // Looked for at every word: global options and a database URL may come before the verb, and rake and rails
      // take several tasks in one run (`rake db:drop db:create db:migrate`).
      const hit = resets[label]!.find(([re]) => re.test(text));
      if (!hit) continue;
      const env = aimedAt(argv, c);
      if (testEnvironment(env)) return;
      const linked = label === 'supabase' && argv.some((a) => /^--(linked|db-url)(=|$)/.test(a.value));
      const where = linked ? ' of the linked project' : env === undefined ? '' : ` in the ${env} environment`;
      const verb = hit[0].exec(text)![0];
      // A production database reset is a wholesale destroy of it.
      if (env !== undefined && prodWord.test(env))
        return kit.emit(
          c,
          'hardline',
          'db.reset',
          `destroys a production database: ${hit[1]}${where} (${label} ${verb})`,
        );
      return kit.emit(c, 'dangerous', 'db.reset', `${hit[1]}${where} (${label} ${verb})`);
    }
  };

/** `rails db:migrate VERSION=0` migrates every step down. */
const rails =
  (label: string): Rule =>
  (argv, c, kit) => {
    if (argv.some((a) => a.value === 'VERSION=0') && argv.some((a) => /^db:migrate(:down)?$/.test(a.value))) {
      if (!testEnvironment(aimedAt(argv, c)))
        return kit.emit(c, 'dangerous', 'db.reset', `rolls back every migration (${label} db:migrate VERSION=0)`);
    }
    framework(label)(argv, c, kit);
  };

export const databaseRules: Record<string, Rule> = {
  ...Object.fromEntries(
    Object.keys(resets)
      .filter((k) => k !== 'supabase')
      .map((k) => [k, framework(k)]),
  ),
  // supabase's other verbs are remoteCliTable's.
  supabase: remoteCli('supabase', framework('supabase')),
  rails: rails('rails'),
  rake: rails('rake'),
};

export const databaseExamples: RuleExamples = {
  'db.reset': {
    match: [
      'npx prisma migrate reset --force',
      'prisma db push --accept-data-loss',
      'bin/rails db:drop',
      'bundle exec rake db:drop db:create db:migrate',
      'python manage.py flush --noinput',
      './manage.py migrate shop zero',
      'alembic downgrade base',
      'php artisan migrate:fresh --seed',
      'mix ecto.reset',
      'dotnet ef database drop --force',
      'RAILS_ENV=staging bin/rails db:reset',
      'RAILS_ENV=production bin/rails db:drop',
      'supabase db reset --linked',
    ],
    notMatch: [
      'npx prisma migrate dev --name init',
      'npx prisma db push',
      'bin/rails db:migrate',
      'RAILS_ENV=test bin/rails db:reset',
      'rake db:reset RAILS_ENV=test',
      'python manage.py migrate',
      'alembic downgrade -1',
      'php artisan migrate',
      'MIX_ENV=test mix ecto.reset',
    ],
  },
};
