// SQL given to database clients on the command line, in a here-document or through a pipe: DROP,
// TRUNCATE, and DELETE or UPDATE without WHERE ask.
import { parseOptions } from '../options.js';
import type { Rule, RuleExamples } from '../ruleKit.js';
import { isKnown, shown, type Arg, type CommandContext } from '../scanTypes.js';
import type { RuleKit } from '../ruleKit.js';
import { prodWord, productionSignal } from './remoteRules.js';

/** The destructive statements in a SQL text, as reasons. */
export function sqlFindings(sql: string): string[] {
  const text = sql.replace(/--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/'(?:[^'\\]|\\.|'')*'/g, "''");
  const out: string[] = [];
  for (const stmt of text.split(';')) {
    const s = stmt.trim().replace(/\s+/g, ' ');
    let m: RegExpExecArray | null;
    if (
      (m =
        /^drop\s+(table|database|schema|index|view|user|role|collection|keyspace)\s+(if\s+exists\s+)?([^\s(]+)/i.exec(
          s,
        ))
    )
      out.push(`drops ${m[1]!.toLowerCase()} ${m[3]} (SQL DROP)`);
    else if ((m = /^truncate\s+(?:table\s+)?([^\s;]+)/i.exec(s))) out.push(`empties table ${m[1]} (SQL TRUNCATE)`);
    else if ((m = /^delete\s+from\s+([^\s;]+)/i.exec(s)) && !/\swhere\s/i.test(` ${s} `))
      out.push(`deletes every row of ${m[1]} (SQL DELETE without WHERE)`);
    else if ((m = /^update\s+([^\s;]+)\s+set\s/i.exec(s)) && !/\swhere\s/i.test(` ${s} `))
      out.push(`changes every row of ${m[1]} (SQL UPDATE without WHERE)`);
    else if (/^(flushall|flushdb)$/i.test(s)) out.push(`deletes every key (${s.toUpperCase()})`);
    else if (/dropDatabase\s*\(|\.drop\s*\(\s*\)|deleteMany\s*\(\s*\{\s*\}\s*\)/.test(s))
      out.push('drops a collection or database (mongo)');
  }
  return out;
}

/** Where a client connects, when it is another host (a remote database), and whether its name says production. */
interface Target {
  host: string;
  production?: string;
}

/** Names that are this machine, or a container beside it (a compose service name has no dot). */
const localHost = /^(localhost|127(\.\d+){3}|::1|\[::1\]|0\.0\.0\.0|host\.docker\.internal|[\w-]+)$/i;

/**
 * The host a database client talks to: `-h`/`--host`, a connection URL (postgres://, mysql://, mongodb+srv://,
 * redis://), or PGHOST / MYSQL_HOST / REDIS_HOST given to the command; undefined for this machine or a socket.
 */
export function remoteTarget(argv: Arg[], c: CommandContext, hostFlags = /^(-h|--host|-H)$/): Target | undefined {
  let host: string | undefined;
  argv.slice(1).forEach((a, i, rest) => {
    if (host !== undefined || !isKnown(a)) return;
    const url =
      /^(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|clickhouse):\/\/(?:[^@/]*@)?([^:/?,]+)/i.exec(
        a.value.replace(/^--?[\w-]+=/, ''),
      );
    if (url) host = url[1];
    else if (hostFlags.test(a.value) && rest[i + 1] && isKnown(rest[i + 1]!)) host = rest[i + 1]!.value;
    else if (/^--host=/.test(a.value)) host = a.value.slice(7);
    else if (/^-h[^-]/.test(a.value) && hostFlags.test('-h')) host = a.value.slice(2);
  });
  for (const vars of [c.env, c.scope.vars])
    for (const [k, v] of vars ?? []) if (host === undefined && /^(PGHOST|MYSQL_HOST|REDIS_HOST)$/.test(k)) host = v;
  if (host === undefined || host.startsWith('/') || (localHost.test(host) && !prodWord.test(host))) return undefined;
  const production = prodWord.test(host) ? host : productionSignal(argv, c);
  return { host, ...(production ? { production } : {}) };
}

/** SQL (or a client's commands) that only reads: SELECT, SHOW, EXPLAIN, psql's `\d…`, a transaction's bounds. */
function readsOnly(sql: string): boolean {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/'(?:[^'\\]|\\.|'')*'/g, "''");
  return text
    .split(/;|\n(?=\s*\\)/)
    .map((s) => s.trim())
    .filter(Boolean)
    .every((s) => readStatement.test(s));
}

/** A statement that only reads: SQL's, psql's `\d…`, mongo's finds and counts, a transaction's bounds. */
const readStatement = new RegExp(
  '^(select|show|explain|describe|desc|values|table|with\\b(?![\\s\\S]*\\b(insert|update|delete|merge)\\b)|' +
    '\\\\[a-z?]|begin|commit|rollback|start transaction|set (search_path|role|session)|use |' +
    'db\\.[\\w.]*\\.(find|findOne|count|countDocuments|estimatedDocumentCount|distinct|getIndexes|stats)\\b|' +
    'db\\.(getCollectionNames|stats|getName|version|serverStatus)\\b|print)',
  'i',
);

/** Statements that remove a whole database: DROP DATABASE/SCHEMA, mongo's dropDatabase, redis FLUSHALL/FLUSHDB. */
const wholesale = /\bdrop\s+(database|schema)\b|dropDatabase\s*\(|^\s*flush(all|db)\b/im;

function report(
  kit: RuleKit,
  c: CommandContext,
  sql: string,
  at: Arg | undefined,
  client: string,
  target?: Target,
): void {
  const on = target ? ` on ${target.host}` : '';
  if (target?.production && wholesale.test(sql))
    kit.emit(
      c,
      'hardline',
      'remote.destroy',
      `destroys a production database: ${wholesale
        .exec(sql)![0]
        .replace(/\s*\($/, '')
        .trim()} on ${target.host} (${client}, ` + `in production: ${target.production})`,
      at,
    );
  else
    for (const text of sqlFindings(sql))
      kit.emit(c, 'dangerous', 'sql.destructive', `${text.replace(/\)$/, `${on} via ${client})`)}`, at);
  // Writes to another host's database ask too: only reads of it are everyday.
  if (target && !sqlFindings(sql).length && !readsOnly(sql))
    kit.emit(
      c,
      'dangerous',
      'remote.change',
      `changes the database on ${target.host}: ${sql.trim().split('\n')[0]!.slice(0, 60)} (${client})` +
        `${target.production ? `, in production (${target.production})` : ''}`,
      at,
    );
  // The clients' own shell escapes: psql and mysql `\! cmd`, mysql `system cmd`, sqlite `.shell` / `.system`.
  for (const m of sql.matchAll(/(?:^|\n|;)\s*(?:\\!|system\s|\.shell\s|\.system\s)([^\n]*)/gi))
    kit.payload(c, m[1]!.trim(), at ?? { value: m[1]!, source: '', start: 0, end: 0 });
}

const client =
  (label: string, flags: { short: string; long: string[]; positionalSql?: boolean }): Rule =>
  (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), {
      shortValue: `${flags.short}hpUdDuPSfo`,
      longValue: [
        ...flags.long,
        'host',
        'port',
        'username',
        'dbname',
        'user',
        'password',
        'file',
        'output',
        'database',
        'pager',
      ],
    });
    const target = label.startsWith('sqlite') ? undefined : remoteTarget(argv, c);
    let given = false;
    for (const k of [...flags.short].map((s) => `-${s}`).concat(flags.long.map((l) => `--${l}`))) {
      const sql = p.values.get(k);
      if (sql === undefined) continue;
      given = true;
      report(
        kit,
        c,
        sql,
        argv.find((a) => a.value === sql || a.value.endsWith(sql)),
        label,
        target,
      );
    }
    const pager = p.values.get('--pager');
    if (pager !== undefined && isKnown(pager))
      kit.payload(c, pager, argv.find((a) => a.value.endsWith(pager)) ?? argv[0]!);
    if (flags.positionalSql) for (const op of p.operands.slice(1)) if (isKnown(op)) report(kit, c, op.value, op, label);
    if (c.stdin?.text) return report(kit, c, c.stdin.text, undefined, label, target);
    // A file of statements run against another host: its content is not read here.
    const file = p.values.get('-f') ?? p.values.get('--file') ?? c.stdin?.file;
    if (target && file !== undefined && !given)
      kit.emit(
        c,
        'dangerous',
        'remote.change',
        `runs the statements of ${file} against the database on ${target.host} (${label})` +
          `${target.production ? `, in production (${target.production})` : ''}`,
      );
  };

/** redis-cli: FLUSHALL / FLUSHDB empty it; against another host, any command that writes asks. */
const redisReads = new RegExp(
  '^(get|mget|getrange|strlen|exists|type|ttl|pttl|keys|scan|sscan|hscan|zscan|hget|hmget|hgetall|hkeys|hvals|hlen|' +
    'hexists|lrange|llen|lindex|smembers|scard|sismember|zrange|zrevrange|zrangebyscore|zcard|zscore|xrange|xlen|' +
    'info|ping|dbsize|memory|slowlog|client|config|monitor|time|lastsave|role|echo|object|pubsub|subscribe|' +
    'psubscribe|auth|select|--scan|--bigkeys|--memkeys|--latency|--stat)$',
  'i',
);
const redis: Rule = (argv, c, kit) => {
  const target = remoteTarget(argv, c, /^-h$/);
  const p = parseOptions(argv.slice(1), { shortValue: 'hpanu', longValue: ['user', 'pass', 'tls'] });
  const words = p.operands.map((a) => a.value);
  const flush = words.find((w) => /^flush(all|db)$/i.test(w)) ?? /\bflush(all|db)\b/i.exec(c.stdin?.text ?? '')?.[0];
  if (flush && target?.production)
    return kit.emit(
      c,
      'hardline',
      'remote.destroy',
      `destroys a production database: ${flush.toUpperCase()} on ${target.host} (redis-cli, in production: ` +
        `${target.production})`,
    );
  if (flush)
    return kit.emit(
      c,
      'dangerous',
      'sql.destructive',
      `deletes every key${target ? ` on ${target.host}` : ''} (redis-cli ${flush.toUpperCase()})`,
    );
  if (target && words.length > 0 && !redisReads.test(words[0]!))
    kit.emit(
      c,
      'dangerous',
      'remote.change',
      `changes the data on ${target.host}: ${words.slice(0, 3).join(' ')} (redis-cli)`,
    );
};

/** pg_restore: `--clean` drops what it restores first; into another host's database it changes that database. */
const pgRestore: Rule = (argv, c, kit) => {
  const target = remoteTarget(argv, c);
  const clean = argv.some((a) => /^(-c|--clean|-[a-zA-Z]*c[a-zA-Z]*)$/.test(a.value) && !a.value.startsWith('--c'));
  const cleanLong = argv.some((a) => a.value === '--clean');
  if (!clean && !cleanLong && !target) return;
  const what = clean || cleanLong ? 'drops and restores what the dump holds' : 'restores a dump';
  kit.emit(
    c,
    'dangerous',
    target ? 'remote.change' : 'sql.destructive',
    `${what}${target ? ` in the database on ${target.host}` : ''} (pg_restore${clean || cleanLong ? ' --clean' : ''})` +
      `${target?.production ? `, in production (${target.production})` : ''}`,
  );
};

/** dropdb drops a database; a production one is hardline. */
const dropdb: Rule = (argv, c, kit) => {
  const target = remoteTarget(argv, c);
  const db = shown(argv[argv.length - 1]!);
  const production = target?.production ?? (prodWord.test(db) ? db : undefined);
  if (production)
    return kit.emit(
      c,
      'hardline',
      'remote.destroy',
      `destroys a production database: drops ${db}${target ? ` on ${target.host}` : ''} (dropdb, in production: ` +
        `${production})`,
    );
  kit.emit(c, 'dangerous', 'sql.destructive', `drops database ${db}${target ? ` on ${target.host}` : ''} (dropdb)`);
};

export const sqlRules: Record<string, Rule> = {
  dropdb,
  psql: client('psql', { short: 'c', long: ['command'] }),
  mysql: client('mysql', { short: 'e', long: ['execute'] }),
  mariadb: client('mariadb', { short: 'e', long: ['execute'] }),
  sqlite3: client('sqlite3', { short: '', long: ['cmd'], positionalSql: true }),
  sqlite: client('sqlite', { short: '', long: ['cmd'], positionalSql: true }),
  'clickhouse-client': client('clickhouse-client', { short: 'q', long: ['query'] }),
  cockroach: client('cockroach', { short: 'e', long: ['execute'] }),
  mongo: client('mongo', { short: '', long: ['eval'] }),
  mongosh: client('mongosh', { short: '', long: ['eval'] }),
  'redis-cli': redis,
  pg_restore: pgRestore,
};

export const sqlExamples: RuleExamples = {
  'remote.change': {
    match: [
      'psql -h db.acme.com -c "UPDATE users SET admin = true WHERE id = 3"',
      'mysql -h 10.2.3.4 app < migrate.sql',
      'redis-cli -h cache.acme.com DEL session:1',
      'pg_restore --clean -h db.acme.com -d app x.dump',
    ],
    notMatch: [
      'psql -h db.acme.com -c "SELECT count(*) FROM orders"',
      'psql -h localhost -c "UPDATE users SET a = 1 WHERE id = 3"',
      'redis-cli -h cache.acme.com GET k',
      'psql -h db.acme.com app',
    ],
  },
  'remote.destroy': {
    match: [
      'psql -h db.prod.acme.internal -c "DROP DATABASE app"',
      'redis-cli -h redis.prod.internal FLUSHALL',
      'dropdb -h prod-db.internal app',
    ],
    notMatch: ['psql -h db.staging.acme.com -c "DROP DATABASE app"', 'dropdb app_dev'],
  },
  'sql.destructive': {
    match: [
      'psql -c "DROP TABLE users"',
      'mysql -e "DELETE FROM orders"',
      'sqlite3 app.db "UPDATE users SET admin = 1"',
      'redis-cli FLUSHALL',
      'echo "TRUNCATE logs;" | psql app',
    ],
    notMatch: ['psql -c "SELECT count(*) FROM users"', 'mysql -e "DELETE FROM orders WHERE id = 3"', 'redis-cli GET k'],
  },
};
