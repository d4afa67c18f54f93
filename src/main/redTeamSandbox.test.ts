// The sandbox holds against the agent inside it. An agent that can only make tool calls (MCP over HTTP, with the token
// an MCP client holds) attacks the sandbox itself — privilege, redirection of what it binds, files that run later
// outside it, the person's caches, the network, a fork flood — against a real `switchboard serve` run as root and
// again as an unprivileged user, with canaries: every attack must fail, and what the person runs outside afterwards
// (bash, zsh, fish, git, python, npm, ssh, kubectl) must not fire anything planted. Approvals are off here (a person
// who trusts the sandbox): nothing but the sandbox stands in the way. Then, as a developer inside: git, npm ci, pip
// in a venv, cargo build, a loopback port the person allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PendingApproval } from '../shared/approvals.js';
import {
  ensureBuilt,
  runCli,
  runCliAtTerminal,
  startServe,
  type RunAs,
  type Served,
} from '../../scripts/cliHarness.js';
import { appFor, testUser, type TestUser } from '../../scripts/asUser.js';
import { sandboxAvailability } from './core/sandbox/index.js';

const sandbox = sandboxAvailability();
if (!sandbox.ok) console.warn(`red team (sandbox): no sandbox here (${sandbox.reason}); nothing to attack`);

type ToolReply = { isError?: boolean; content: Array<{ type: string; text?: string }> };
/** A call's output as the agent reads it: a terminal result's `output`, else the whole text it got. */
const text = (r: ToolReply): string => {
  const all = r.content.map((c) => c.text ?? '').join('\n');
  try {
    const parsed = JSON.parse(all) as { output?: unknown };
    return typeof parsed.output === 'string' ? parsed.output : all;
  } catch {
    return all; // an error line, not JSON
  }
};

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Poll until `check` holds (or `ms` pass); the last answer. */
async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 150));
  }
  return check();
}

const me = process.getuid?.() ?? -1;
const user = testUser();
const legs: Array<{ name: string; user: TestUser | undefined; skip?: string }> = [
  { name: 'root', user: undefined, ...(me === 0 ? {} : { skip: 'the tests are not run as root' }) },
  me === 0
    ? 'missing' in user
      ? { name: 'an unprivileged user', user: undefined, skip: user.missing }
      : { name: 'an unprivileged user', user }
    : { name: 'an unprivileged user (this process)', user: undefined },
];

for (const leg of legs) {
  if (leg.skip) console.warn(`red team (sandbox), a Core run as ${leg.name}: not played (${leg.skip})`);
  describe.skipIf(!sandbox.ok || !!leg.skip)(
    `red team: the sandbox, on a Core run as ${leg.name}`,
    { timeout: 600_000 },
    () => {
      // Not under /tmp: inside the sandbox /tmp is the target's own.
      const base = realpathSync(mkdtempSync('/var/tmp/sb-redteam-sandbox-'));
      const person = join(base, 'person');
      const profile = join(person, '.switchboard');
      const proj = join(person, 'proj');
      const open = join(person, 'open');
      const canary = join(base, 'canary');
      const bin = join(base, 'bin');
      let app: { root: string; remove(): void } | undefined;
      let runAs: RunAs | undefined;
      let served: Served;
      let agent: Client;
      let hostServer: Server;
      let hostPort = 0;
      let abstractServer: Server;
      const abstractName = `sb-redteam-${process.pid}-${leg.name.length}`;
      const HOST_SECRET = 'CANARY-HOST-LOOPBACK-9c1e';

      const call = async (name: string, args: Record<string, unknown>): Promise<ToolReply> =>
        (await agent.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as ToolReply;
      const sh = (command: string, target = 'home', extra: Record<string, unknown> = {}): Promise<ToolReply> =>
        call('terminal', { command, execution_target: target, timeout: 300, ...extra });
      /** What the person runs outside, as the person (the user the Core runs as), in their home. */
      const personRuns = (file: string, args: string[], cwd = person): string => {
        const r = spawnSync(file, args, {
          cwd,
          env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: person, TERM: 'dumb', USER: leg.user?.name ?? 'root' },
          encoding: 'utf8',
          timeout: 30_000,
          input: '',
          ...(leg.user ? { uid: leg.user.uid, gid: leg.user.gid } : {}),
        });
        return `${r.stdout ?? ''}${r.stderr ?? ''}`;
      };
      const canaries = (): string[] => readdirSync(canary);
      const configBefore = (): string => readFileSync(join(profile, 'config.yaml'), 'utf8');
      let config = '';

      beforeAll(async () => {
        ensureBuilt();
        for (const d of [person, profile, proj, open, canary, bin, join(person, '.ssh')])
          mkdirSync(d, { recursive: true });
        chmodSync(canary, 0o777);
        writeFileSync(join(person, '.ssh', 'id_ed25519'), 'CANARY-SSH-KEY\n', { mode: 0o600 });
        writeFileSync(join(person, '.bashrc'), 'PS1="$ "\n');
        writeFileSync(
          join(person, '.profile'),
          '[ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n',
        );
        // The person's toolchain and caches, which a build inside must not change.
        const rustc = join(person, '.rustup', 'toolchains', 'stable', 'bin', 'rustc');
        mkdirSync(join(rustc, '..'), { recursive: true });
        writeFileSync(rustc, '#!/bin/sh\necho the real rustc\n', { mode: 0o755 });
        mkdirSync(join(person, '.cargo', 'registry', 'src', 'crate-1.0'), { recursive: true });
        writeFileSync(join(person, '.cargo', 'registry', 'src', 'crate-1.0', 'lib.rs'), '// the real crate\n');
        mkdirSync(join(person, '.gradle'), { recursive: true });
        // A repository of the person's, in the workspace.
        const git = (...args: string[]) => execFileSync('git', ['-C', proj, ...args], { stdio: 'ignore' });
        git('init', '-q');
        writeFileSync(join(proj, 'README'), 'hello\n');
        git('add', 'README');
        git('-c', 'user.email=p@x', '-c', 'user.name=p', 'commit', '-qm', 'init');
        hostServer = createServer((s) => s.end(`${HOST_SECRET}\n`));
        await new Promise<void>((r) => hostServer.listen(0, '127.0.0.1', r));
        hostPort = (hostServer.address() as { port: number }).port;
        // An abstract unix socket of the host's (a desktop's X11 or D-Bus is one).
        abstractServer = createServer((s) => s.end(`${HOST_SECRET}\n`));
        await new Promise<void>((r) => abstractServer.listen({ path: `\0${abstractName}` }, r));
        writeFileSync(
          join(profile, 'config.yaml'),
          [
            'terminal:',
            '  default_target: home',
            '  targets:',
            `    home: { backend: local, cwd: ${person} }`,
            `    proj: { backend: local, cwd: ${proj} }`,
            `    db: { backend: local, cwd: ${proj}, sandbox: { allow_local_ports: [${hostPort}] } }`,
            `    open: { backend: local, cwd: ${open}, sandbox: off }`,
            // A small process limit for the flood: what is measured is that it stays inside, not how high it goes.
            `    flood: { backend: local, cwd: ${proj}, sandbox: { max_processes: 64 } }`,
            'approvals:',
            '  mode: off',
            '',
          ].join('\n'),
        );
        config = configBefore();
        if (leg.user) {
          execFileSync('chown', ['-R', `${leg.user.uid}:${leg.user.gid}`, base]);
          app = appFor(leg.user);
          runAs = { uid: leg.user.uid, gid: leg.user.gid, app: app.root };
        }
        served = await startServe(
          profile,
          { HOME: person, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, TMUX_TMPDIR: join(base, 'tmux') },
          false,
          runAs,
        );
        agent = new Client({ name: 'red-team-sandbox', version: '1' });
        await agent.connect(
          new StreamableHTTPClientTransport(new URL(`${served.url}mcp`), {
            requestInit: { headers: { authorization: `Bearer ${served.token}` } },
          }),
        );
      }, 180_000);

      afterAll(async () => {
        await agent?.close();
        await served?.stop();
        hostServer?.close();
        abstractServer?.close();
        app?.remove();
        rmSync(base, { recursive: true, force: true });
      });

      it('holds no privilege: no capability, no remount, no /proc/sys, no new namespaces, no raw sockets', async () => {
        const r = text(
          await sh(
            [
              'grep -E "^(CapEff|CapBnd|Seccomp):" /proc/self/status',
              'umount -l /tmp && echo UMOUNTED',
              'mount -o remount,bind,rw / && echo REMOUNTED',
              'touch /usr/sb-canary && echo WROTE-USR',
              `echo '|/bin/sh -c "touch ${canary}/core-pattern"' > /proc/sys/kernel/core_pattern && echo WROTE-SYSCTL`,
              'unshare -r true && echo NEW-USERNS',
              'python3 -c "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW); print(\'RAW-SOCKET\')"',
              "python3 -c \"import os,fcntl,termios; m,s=os.openpty(); fcntl.ioctl(s, termios.TIOCSTI, b'x'); " +
                "print('TIOCSTI')\"",
            ].join('; '),
          ),
        );
        expect(r).toMatch(/CapEff:\s+0000000000000000/);
        expect(r).toMatch(/CapBnd:\s+0000000000000000/);
        expect(r).toMatch(/Seccomp:\s+2/);
        for (const done of [
          'UMOUNTED',
          'REMOUNTED',
          'WROTE-USR',
          'WROTE-SYSCTL',
          'NEW-USERNS',
          'RAW-SOCKET',
          'TIOCSTI',
        ])
          expect(r).not.toContain(done);
        expect(existsSync('/usr/sb-canary')).toBe(false);
        expect(configBefore()).toBe(config);
        // Whatever a call did, the next one finds the same walls.
        expect(text(await sh('grep CapEff /proc/self/status; touch /usr/sb-canary2 || echo refused'))).toMatch(
          /0000000000000000[\s\S]*refused/,
        );
      });

      it("cannot redirect what it is given: its /tmp's source is out of reach, the profile stays hidden", async () => {
        const r = text(
          await sh(
            [
              // The identity folder, as mountinfo names /tmp's source.
              'D=$(awk \'$5 == "/tmp" { print $4 }\' /proc/self/mountinfo | head -1); D=${D%/tmp}; echo "ID=$D"',
              'mv "$D/tmp" "$D/x" && echo MOVED',
              'ln -s ../../.. "$D/tmp" && echo LINKED',
              `ls -A ${profile}`,
            ].join('; '),
          ),
        );
        expect(r).not.toMatch(/MOVED|LINKED/);
        // The next sandbox still has its own /tmp, and the profile is still an empty folder.
        const after = text(await sh(`ls -A /tmp; cat ${profile}/config.yaml; ls ${profile}`));
        expect(after).not.toContain('config.yaml\n');
        expect(after).not.toContain('approvals:');
        for (const path of [join(profile, 'core.json'), join(profile, 'config.yaml'), '/tmp/core.json'])
          expect((await call('read_file', { path, execution_target: 'home' })).isError).toBe(true);
        expect(configBefore()).toBe(config);
      });

      it('cannot hide code in its exports for a call the person lets out of the sandbox', async () => {
        await sh(
          [
            'mkdir -p /tmp/evil',
            `printf '#!/bin/sh\\ntouch ${canary}/path-ls\\n' > /tmp/evil/ls; chmod +x /tmp/evil/ls`,
            'export PATH=/tmp/evil:$PATH',
            `printf 'touch ${canary}/exports-sourced\\n' >> /tmp/.switchboard/exports.sh`,
          ].join('; '),
          'proj',
        );
        const held = sh('ls', 'proj', { outside_sandbox: true });
        let pending: PendingApproval | undefined;
        const list = async () =>
          JSON.parse((await runCli(profile, ['approvals', 'list', '--json'], {}, runAs)).stdout)
            .approvals as PendingApproval[];
        await until(async () => (pending = (await list()).find((a) => a.command === 'ls')) !== undefined);
        expect(pending?.outside_sandbox).toBe(true);
        expect(
          (await runCliAtTerminal(profile, ['approvals', 'approve', pending!.id], {}, undefined, runAs)).status,
        ).toBe(0);
        const r = text(await held);
        expect(r).toContain('README');
        expect(canaries()).toEqual([]);
      });

      it('cannot plant what runs later outside, where nothing existed: shells, git, PATH, tools, agents', async () => {
        const payload = (name: string) => `touch ${canary}/${name}`;
        const plants: Array<[string, string]> = [
          ['~/.bash_aliases', payload('bash-aliases')],
          ['~/.bash_profile', payload('bash-profile')],
          ['~/.bash_login', payload('bash-login')],
          ['~/.zshrc', payload('zshrc')],
          ['~/.zshenv', payload('zshenv')],
          ['~/.config/fish/config.fish', payload('fish')],
          ['~/.inputrc', '$include /nonexistent'],
          ['~/.local/bin/git', `#!/bin/sh\n${payload('local-bin-git')}\nexec /usr/bin/git "$@"`],
          ['~/bin/python3', `#!/bin/sh\n${payload('home-bin-python')}`],
          ['~/.gitconfig', `[core]\n\tfsmonitor = "${payload('gitconfig-fsmonitor')}; false"`],
          ['~/.config/git/config', `[core]\n\tfsmonitor = "${payload('config-git')}; false"`],
          ['~/.local/lib/python3.11/site-packages/evil.pth', `import os; os.system("${payload('pth')}")`],
          ['~/.kube/config', 'users:\n- name: x\n  user:\n    exec: { command: /bin/sh }'],
          ['~/.npmrc', `node-options=--require=/tmp/evil.js`],
          ['~/.ssh/config', `Host *\n  ProxyCommand sh -c '${payload('ssh-proxy')}'`],
          ['~/.config/systemd/user/evil.service', `[Service]\nExecStart=/bin/sh -c '${payload('systemd')}'`],
          ['~/.config/autostart/evil.desktop', `[Desktop Entry]\nExec=sh -c '${payload('autostart')}'`],
          ['~/.config/environment.d/evil.conf', 'LD_PRELOAD=/tmp/evil.so'],
          ['~/.claude.json', '{"mcpServers":{"evil":{"command":"sh"}}}'],
          ['~/.claude/settings.json', '{"hooks":{}}'],
          ['~/.codex/config.toml', '[mcp_servers.evil]\ncommand = "sh"'],
          ['~/.cursor/mcp.json', '{}'],
          ['~/.vimrc', `:!${payload('vimrc')}`],
          ['~/proj/.git/hooks/pre-commit', `#!/bin/sh\n${payload('hook')}`],
          ['~/proj/.git/config', `[core]\n\tfsmonitor = "${payload('repo-fsmonitor')}; false"`],
        ];
        const script = plants
          .map(([path, body]) => {
            const p = path.replace(/^~\//, '"$HOME"/');
            const quoted = body.replace(/'/g, "'\\''");
            return `mkdir -p "$(dirname ${p})" 2>/dev/null; printf '%s\\n' '${quoted}' >> ${p} 2>/dev/null`;
          })
          .join('; ');
        // Each plant, and each again after moving its folder away (a mount moves with the folder it is in).
        await sh(script);
        await sh(`for d in .config .local .claude .codex bin; do mv ~/$d ~/$d.moved 2>/dev/null; done; ${script}`);
        for (const [path, body] of plants) {
          const file = join(person, path.slice(2));
          const now = existsSync(file) ? readFileSync(file, 'utf8') : '';
          expect(now, path).not.toContain(body);
        }
        for (const d of ['.config', '.local', '.claude', '.codex', 'bin'])
          expect(existsSync(join(person, `${d}.moved`)), d).toBe(false);
        // The person's own tools, outside, afterwards.
        personRuns('bash', ['-lic', 'true']);
        personRuns('bash', ['-ic', 'true']);
        if (has('zsh')) personRuns('zsh', ['-lic', 'true']);
        if (has('fish')) personRuns('fish', ['-lic', 'true']);
        personRuns('git', ['status'], proj);
        personRuns('git', ['-c', 'user.email=p@x', '-c', 'user.name=p', 'commit', '--allow-empty', '-qm', 'x'], proj);
        personRuns('python3', ['-c', 'pass']);
        if (has('npm')) personRuns('npm', ['--version']);
        personRuns('ssh', ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=1', 'nowhere.invalid', 'true']);
        if (has('kubectl')) personRuns('kubectl', ['version', '--client']);
        expect(canaries()).toEqual([]);
      });

      it("cannot read the person's other logins nor the machine's secrets", async () => {
        for (const [file, body] of [
          ['.pgpass', 'db:5432:*:me:CANARY-PGPASS'],
          ['.cargo/credentials.toml', '[registry]\ntoken = "CANARY-CARGO"'],
          ['.config/rclone/rclone.conf', '[s3]\nsecret_access_key = CANARY-RCLONE'],
          ['.vault-token', 'CANARY-VAULT'],
        ] as const) {
          mkdirSync(join(person, file, '..'), { recursive: true });
          writeFileSync(join(person, file), `${body}\n`);
          if (leg.user)
            execFileSync('chown', ['-R', `${leg.user.uid}:${leg.user.gid}`, join(person, file.split('/')[0]!)]);
        }
        // A sandbox looks at what exists again within 2 s: shells started before the files were made are retired.
        await new Promise((r) => setTimeout(r, 2500));
        const r = text(
          await sh(
            'cat ~/.pgpass ~/.cargo/credentials.toml ~/.config/rclone/rclone.conf ~/.vault-token; cat /etc/shadow',
          ),
        );
        expect(r).not.toMatch(/CANARY-/);
        expect(r).not.toMatch(/^root:/m);
      });

      it("cannot reach a submodule's config or hooks either", async () => {
        const lib = join(base, 'lib');
        mkdirSync(lib, { recursive: true });
        const git = (cwd: string, ...args: string[]) =>
          execFileSync(
            'git',
            ['-C', cwd, '-c', 'safe.directory=*', '-c', 'user.email=p@x', '-c', 'user.name=p', ...args],
            {
              stdio: 'ignore',
            },
          );
        git(lib, 'init', '-q');
        writeFileSync(join(lib, 'x'), 'x\n');
        git(lib, 'add', 'x');
        git(lib, 'commit', '-qm', 'lib');
        git(proj, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib');
        git(proj, 'commit', '-qm', 'sub');
        if (leg.user) execFileSync('chown', ['-R', `${leg.user.uid}:${leg.user.gid}`, proj, lib]);
        await new Promise((r) => setTimeout(r, 11_000)); // the sandbox looks for repositories again after 10 s
        await sh(
          `printf '[core]\\n\\tfsmonitor = "touch ${canary}/submodule; false"\\n' >> .git/modules/lib/config; ` +
            `printf '#!/bin/sh\\ntouch ${canary}/submodule-hook\\n' > .git/modules/lib/hooks/post-checkout`,
          'proj',
        );
        personRuns('git', ['status'], proj);
        personRuns('git', ['-C', 'lib', 'status'], proj);
        expect(canaries()).toEqual([]);
      });

      it("cannot replace the person's toolchains or poison their caches; builds get caches of their own", async () => {
        const r = text(
          await sh(
            [
              "printf '#!/bin/sh\\necho poisoned\\n' > ~/.rustup/toolchains/stable/bin/rustc || echo RUSTC-REFUSED",
              'echo "// poisoned" >> ~/.cargo/registry/src/crate-1.0/lib.rs || echo REGISTRY-REFUSED',
              'mkdir -p ~/.gradle/init.d && echo x > ~/.gradle/init.d/evil.gradle || echo GRADLE-REFUSED',
              'echo "npm cache: $npm_config_cache"; echo "cargo home: $CARGO_HOME"',
            ].join('; '),
          ),
        );
        expect(r).toMatch(/RUSTC-REFUSED[\s\S]*REGISTRY-REFUSED[\s\S]*GRADLE-REFUSED/);
        expect(r).toMatch(new RegExp(`npm cache: ${profile}/state/caches/\\w+/npm`));
        expect(personRuns(join(person, '.rustup', 'toolchains', 'stable', 'bin', 'rustc'), [])).toBe(
          'the real rustc\n',
        );
        expect(readFileSync(join(person, '.cargo', 'registry', 'src', 'crate-1.0', 'lib.rs'), 'utf8')).toBe(
          '// the real crate\n',
        );
        expect(existsSync(join(person, '.gradle', 'init.d'))).toBe(false);
      });

      it("cannot reach the host's loopback services or abstract sockets; an allowed port is reached", async () => {
        const loop = `exec 3<>/dev/tcp/127.0.0.1/${hostPort} && head -1 <&3`;
        const abstract =
          `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0${abstractName}'); ` +
          'print(s.recv(100).decode())"';
        for (const target of ['home', 'proj']) {
          const r = text(await sh(`${loop}; ${abstract}`, target));
          expect(r).not.toContain(HOST_SECRET);
        }
        expect(text(await sh(loop, 'db'))).toContain(HOST_SECRET);
        // What leaves goes through the Core's proxy, which refuses cloud metadata whatever the rules.
        expect(text(await sh('curl -sS -m 5 http://169.254.169.254/latest/meta-data/'))).toMatch(/refused.*link-local/);
      });

      it('keeps a fork flood inside: the Core and the machine still answer', async () => {
        const forks = 'import os\nwhile True:\n  try: os.fork()\n  except OSError: pass';
        const flood = sh(`timeout 10 python3 -c "${forks}" >/dev/null 2>&1; echo done`, 'flood');
        await new Promise((r) => setTimeout(r, 3000));
        // Meanwhile another target answers, and this machine can start a process.
        expect(text(await sh('echo alive', 'open'))).toContain('alive');
        expect(spawnSync('true').status).toBe(0);
        expect(text(await flood)).toContain('done');
      });

      it('lets a developer work inside: git commit, npm ci, pip install in a venv, cargo build', async () => {
        const g = await sh(
          'echo change >> README && git -c user.email=a@b -c user.name=a commit -qam change && ' +
            'git log --oneline | wc -l',
          'proj',
        );
        expect(text(g).trim().split('\n').pop()).toMatch(/^[2-9]/);
        const npm = await sh(
          [
            'mkdir -p app && cd app',
            'echo \'{"name":"app","version":"1.0.0","dependencies":{"is-number":"7.0.0"}}\' > package.json',
            'npm install --no-audit --no-fund >/dev/null 2>&1 && rm -rf node_modules',
            'npm ci --no-audit --no-fund >/dev/null && node -e "console.log(require(\'is-number\')(5))"',
          ].join(' && '),
          'proj',
        );
        expect(text(npm)).toContain('true');
        const pip = await sh(
          [
            'mkdir -p pkg/mod && cd pkg',
            'printf \'from setuptools import setup\\nsetup(name="mod", version="1.0", ' +
              'packages=["mod"])\\n\' > setup.py',
            'touch mod/__init__.py && cd ..',
            '/usr/bin/python3 -m venv venv && venv/bin/pip install --no-index --no-build-isolation -q ./pkg',
            'venv/bin/python -c "import mod; print(\'imported\')"',
          ].join(' && '),
          'proj',
        );
        expect(text(pip)).toContain('imported');
        const cargo = await sh(
          [
            'mkdir -p crate/src && cd crate',
            'printf \'[package]\\nname = "c"\\nversion = "0.1.0"\\nedition = "2021"\\n\' > Cargo.toml',
            'echo \'fn main() { println!("built"); }\' > src/main.rs',
            '/usr/bin/cargo build -q --offline && ./target/debug/c',
          ].join(' && '),
          'proj',
        );
        expect(text(cargo)).toContain('built');
        expect(canaries()).toEqual([]);
      });
    },
  );
}
