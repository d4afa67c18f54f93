// axe-core (the engine behind Lighthouse's accessibility audit) run inside a page of the window: what it finds that is
// serious or critical, one readable line per rule and node, so a failing test says what to fix and where.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe reports of one rule (the part of its result this test reads). */
export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string; html: string }>;
}

/** Runs axe on the whole page. Its context must bypass CSP (`bypassCSP: true`): the window forbids inline scripts. */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: unknown }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations as AxeViolation[];
  });
}

/** One violation as "rule (impact): help", its nodes beneath with what axe says to fix. */
export function report(v: AxeViolation): string {
  const nodes = v.nodes.map(
    (n) => `    ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s*\n\s*/g, ' ').slice(0, 300)}`,
  );
  return `${v.id} (${v.impact}): ${v.help}\n${nodes.join('\n')}`;
}

/** The serious and critical ones, reported. */
export function serious(violations: readonly AxeViolation[]): string[] {
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(report);
}
