// SQL given to database clients on the command line, in a here-document or through a pipe: DROP,
// TRUNCATE, and DELETE or UPDATE without WHERE ask.
import { parseOptions } from '../options.js';
import type { Rule, RuleExamples } from '../ruleKit.js';
import { isKnown, type Arg, type CommandContext } from '../scanTypes.js';
import type { RuleKit } from '../ruleKit.js';

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

function report(kit: RuleKit, c: CommandContext, sql: string, at: Arg | undefined, client: string): void {
  for (const text of sqlFindings(sql))
    kit.emit(c, 'dangerous', 'sql.destructive', `${text.replace(/\)$/, ` via ${client})`)}`, at);
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
    for (const k of [...flags.short].map((s) => `-${s}`).concat(flags.long.map((l) => `--${l}`))) {
      const sql = p.values.get(k);
      if (sql !== undefined)
        report(
          kit,
          c,
          sql,
          argv.find((a) => a.value === sql || a.value.endsWith(sql)),
          label,
        );
    }
    const pager = p.values.get('--pager');
    if (pager !== undefined && isKnown(pager))
      kit.payload(c, pager, argv.find((a) => a.value.endsWith(pager)) ?? argv[0]!);
    if (flags.positionalSql) for (const op of p.operands.slice(1)) if (isKnown(op)) report(kit, c, op.value, op, label);
    if (c.stdin?.text) report(kit, c, c.stdin.text, undefined, label);
  };

const redis: Rule = (argv, c, kit) => {
  const words = argv.slice(1).map((a) => a.value.toLowerCase());
  if (words.includes('flushall') || words.includes('flushdb'))
    kit.emit(c, 'dangerous', 'sql.destructive', 'deletes every key (redis-cli FLUSHALL)');
  if (c.stdin?.text && /\bflush(all|db)\b/i.test(c.stdin.text))
    kit.emit(c, 'dangerous', 'sql.destructive', 'deletes every key (redis-cli FLUSHALL)');
};

export const sqlRules: Record<string, Rule> = {
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
};

export const sqlExamples: RuleExamples = {
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
