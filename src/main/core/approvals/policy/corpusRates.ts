// Catch rates of a labelled corpus of commands (for the held-out corpus tests): hardline rows judged hardline,
// dangerous rows asked or refused, everyday rows asked; with the rows that missed, for the record.
import type { PolicyVerdict } from '../../../../shared/approvals.js';

export interface CorpusRates {
  /** Share of hardline rows judged hardline. */
  hardline: number;
  /** Share of dangerous rows judged dangerous or hardline. */
  dangerous: number;
  /** Share of everyday rows that were not judged safe. */
  everyday: number;
  /** One line: the three rates with counts, then every miss. */
  summary: string;
}

export function corpusRates(
  rows: readonly [string, PolicyVerdict][],
  judge: (c: string) => PolicyVerdict,
): CorpusRates {
  const t = { hardline: [0, 0], dangerous: [0, 0], safe: [0, 0] };
  const misses: string[] = [];
  for (const [command, want] of rows) {
    const v = judge(command);
    const hit = want === 'hardline' ? v === 'hardline' : v !== 'safe';
    t[want][1]!++;
    if (hit) t[want][0]!++;
    if (hit === (want === 'safe')) misses.push(`${want} ${JSON.stringify(command)} → ${v}`);
  }
  const rate = ([a, b]: number[]): number => (b ? a! / b! : 0);
  const pct = ([a, b]: number[]): string => `${a}/${b} = ${b ? ((100 * a!) / b!).toFixed(1) : '0'} %`;
  return {
    hardline: rate(t.hardline),
    dangerous: rate(t.dangerous),
    everyday: rate(t.safe),
    summary:
      `hardline as hardline ${pct(t.hardline)}, dangerous asked or refused ${pct(t.dangerous)}, everyday asked ` +
      `${pct(t.safe)}${misses.length ? `; misses: ${misses.join('; ')}` : ''}`,
  };
}
