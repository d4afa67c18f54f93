// Stages a busy, realistic window (split panes, runtime targets, a failing target, background work, agent calls) and
// checks it renders without errors. With SB_SCREENSHOT=1 it also refreshes the README's second picture
// (docs/screenshot-busy.png).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServeAndBrowser, openUi, pane, root, run, targetsYaml, waitForText } from './harness.js';

const forReadme = process.env.SB_SCREENSHOT === '1';
const app = useServeAndBrowser();

describe('a busy window', () => {
  it('renders split panes, runtime and failing targets, processes and activity without errors', async () => {
    const base = join(app.served.home, '..');
    const project = join(base, 'switchboard');
    const ci = join(base, 'ci');
    for (const d of [join(project, 'src'), join(project, 'e2e'), join(project, 'docs'), ci])
      mkdirSync(d, { recursive: true });
    for (const f of ['package.json', 'README.md', 'tsconfig.json', 'src/index.ts', 'e2e/harness.ts'])
      writeFileSync(join(project, f), '{}\n');
    writeFileSync(
      join(app.served.home, 'config.yaml'),
      targetsYaml({ laptop: { cwd: project }, 'ci-runner': { cwd: ci } }, 'laptop').replace(
        '  targets:\n',
        `  targets:\n    staging: { backend: ssh, ssh_host: 127.0.0.1, ssh_port: 9, ssh_user: deploy, ` +
          `ssh_key: ${JSON.stringify(join(base, 'missing_ed25519'))}, cwd: /srv/app }\n`,
      ),
    );
    await app.served.cli([
      'targets',
      'register',
      'sandbox-7',
      '--backend',
      'local',
      '--cwd',
      project,
      '--provider',
      'agent-pool',
    ]);
    await app.served.cli([
      'targets',
      'register',
      'sandbox-6',
      '--backend',
      'local',
      '--cwd',
      ci,
      '--provider',
      'agent-pool',
    ]);
    await app.served.cli(['targets', 'drain', 'sandbox-6', '--provider', 'agent-pool']);

    const { page, errors } = await openUi(app.browser, app.served.url);
    await page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'sandbox-6' }).waitFor();
    const p1 = pane(page, 1);
    await p1.getByRole('combobox', { name: 'Target' }).selectOption('laptop');
    await waitForText(p1, `${project} $`);

    // The agent's side of things: calls from the CLI, a background server, a failing target.
    const call = (args: object) => app.served.cli(['call', 'terminal', JSON.stringify(args)]);
    await call({ command: 'git status --short 2>/dev/null | head -3; ls', execution_target: 'laptop' });
    await call({ command: 'npm test -- --reporter=dot 2>/dev/null || true', execution_target: 'ci-runner' });
    await app.served.cli(['call', 'list_targets', '{}']);
    await call({ command: 'uptime', execution_target: 'staging' });
    await call({
      command: 'for i in $(seq 1 600); do echo "GET /health 200 $((RANDOM % 9 + 1))ms"; sleep 1; done',
      background: true,
      execution_target: 'laptop',
    });
    await call({ command: 'sleep 900', background: true, execution_target: 'laptop' });
    await call({ command: 'echo build finished', execution_target: 'sandbox-7' });

    await run(p1, 'clear; ls -la --color=always --group-directories-first');
    await page.keyboard.press('Control+Shift+D');
    const p2 = pane(page, 2);
    await p2.waitFor();
    await p2.getByRole('combobox', { name: 'Target' }).selectOption('ci-runner');
    await waitForText(p2, `${ci} $`);
    await run(
      p2,
      String.raw`clear; for s in lint typecheck unit e2e; do printf '\e[32m✓\e[0m %-10s \e[2m%4dms\e[0m\n' $s ` +
        String.raw`$((RANDOM % 900 + 100)); done; printf '\e[1;32m4 passed\e[0m \e[2m(%s)\e[0m\n' "$(date +%T)"`,
    );
    await waitForText(p2, '4 passed');
    await p1.locator('.xterm').click();
    await run(p1, 'cd src');
    await waitForText(p1, `${project}/src $`);

    const procs = page.getByRole('table', { name: 'Processes' });
    await procs
      .getByRole('row')
      .filter({ hasText: 'GET /health' })
      .click()
      .catch(() => undefined);
    await page.waitForTimeout(2500);
    expect(
      await page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'staging' }).textContent(),
    ).toMatch(/unreachable/);
    expect(await procs.getByRole('row').filter({ hasText: 'sleep 900' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(root, 'test-results/e2e-busy-window.png') });
    if (forReadme) {
      mkdirSync(join(root, 'docs'), { recursive: true });
      await page.screenshot({ path: join(root, 'docs/screenshot-busy.png') });
    }
    await page.close();
    // A dozen CLI runs, each a fresh Node process: minutes on a loaded machine, so more room than the default.
  }, 420_000);
});
