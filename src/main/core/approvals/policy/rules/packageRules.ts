// Package managers and registries: removing installed packages, and publishing — a package, an image or a release
// sent to a registry is public at once and not undone by a later command (npm unpublish is refused after 72 hours,
// PyPI never takes a version number back). A dry run asks nothing. Package managers that run a package's binary
// (`npm exec`, `pnpm prisma …`, `yarn dlx …`) hand it to the rules as the command it is.
// Over 380 lines: one rule family, a rule per manager, each with its examples (ruleExamples.test.ts).
import { hasAny, parseOptions, subcommand } from '../options.js';
import type { Rule, RuleExamples, RuleKit } from '../ruleKit.js';
import { isKnown, shown, type Arg, type CommandContext } from '../scanTypes.js';
import { interpreter } from './remoteCodeRules.js';

/** Subcommands that remove packages, per package manager. */
const removers: Record<string, RegExp> = {
  apt: /^(remove|purge|autoremove)$/,
  'apt-get': /^(remove|purge|autoremove)$/,
  aptitude: /^(remove|purge)$/,
  yum: /^(remove|erase|autoremove)$/,
  dnf: /^(remove|erase|autoremove)$/,
  zypper: /^(rm|remove)$/,
  apk: /^del$/,
  brew: /^(uninstall|remove|rm)$/,
  snap: /^remove$/,
  flatpak: /^(uninstall|remove)$/,
  port: /^uninstall$/,
  pip: /^uninstall$/,
  pip3: /^uninstall$/,
  gem: /^uninstall$/,
  cargo: /^uninstall$/,
  conda: /^(remove|uninstall)$/,
  mamba: /^(remove|uninstall)$/,
  winget: /^uninstall$/,
  choco: /^uninstall$/,
};

/**
 * What each tool's verbs do at its registry, by verb (one word, or two: `dist-tag add`). `owner` verbs take
 * `--add`/`--remove` in cargo and gem, so `owner` alone is listed there and a listing (`owner --list`) is let be.
 */
const publishers: Record<string, { registry: string; verbs: Record<string, string> }> = {
  npm: {
    registry: 'the npm registry',
    verbs: {
      publish: 'publishes',
      unpublish: 'removes',
      deprecate: 'deprecates',
      undeprecate: 'changes',
      'dist-tag add': 'moves a dist-tag of',
      'dist-tag rm': 'removes a dist-tag of',
      'dist-tag set': 'moves a dist-tag of',
      'owner add': 'adds an owner to',
      'owner rm': 'removes an owner of',
      'access grant': 'grants access to',
      'access revoke': 'revokes access to',
      'access set': 'changes who may see or publish',
      'access public': 'makes public',
      'access restricted': 'changes who may see',
      'team create': 'creates a team for',
      'team destroy': 'deletes a team of',
      'team add': 'adds a member to a team of',
      'team rm': 'removes a member from a team of',
      'token create': 'creates a registry token for',
      'token revoke': 'revokes a registry token for',
      'org set': 'changes an organisation member of',
      'org rm': 'removes an organisation member of',
    },
  },
  yarn: {
    registry: 'the npm registry',
    verbs: {
      publish: 'publishes',
      'npm publish': 'publishes',
      'npm tag add': 'moves a dist-tag of',
      'npm tag remove': 'removes a dist-tag of',
      'tag add': 'moves a dist-tag of',
      'tag remove': 'removes a dist-tag of',
      'owner add': 'adds an owner to',
      'owner remove': 'removes an owner of',
    },
  },
  bun: { registry: 'the npm registry', verbs: { publish: 'publishes' } },
  cargo: { registry: 'crates.io', verbs: { publish: 'publishes', yank: 'yanks', owner: 'changes the owners of' } },
  gem: { registry: 'RubyGems', verbs: { push: 'publishes', yank: 'yanks', owner: 'changes the owners of' } },
  twine: { registry: 'PyPI', verbs: { upload: 'publishes', register: 'registers' } },
  poetry: { registry: 'PyPI', verbs: { publish: 'publishes' } },
  uv: { registry: 'PyPI', verbs: { publish: 'publishes' } },
  flit: { registry: 'PyPI', verbs: { publish: 'publishes' } },
  hatch: { registry: 'PyPI', verbs: { publish: 'publishes' } },
  pdm: { registry: 'PyPI', verbs: { publish: 'publishes' } },
  maturin: { registry: 'PyPI', verbs: { publish: 'publishes', upload: 'publishes' } },
  lerna: { registry: 'the npm registry', verbs: { publish: 'publishes' } },
  changeset: { registry: 'the npm registry', verbs: { publish: 'publishes' } },
  vsce: { registry: 'the VS Code Marketplace', verbs: { publish: 'publishes', unpublish: 'removes' } },
  ovsx: { registry: 'Open VSX', verbs: { publish: 'publishes' } },
  nuget: { registry: 'a NuGet feed', verbs: { push: 'publishes', delete: 'removes' } },
  pod: { registry: 'the CocoaPods trunk', verbs: { 'trunk push': 'publishes', 'trunk delete': 'removes' } },
  dart: { registry: 'pub.dev', verbs: { 'pub publish': 'publishes' } },
  flutter: { registry: 'pub.dev', verbs: { 'pub publish': 'publishes' } },
  goreleaser: { registry: 'the release hosts it is configured for', verbs: { release: 'publishes' } },
  anaconda: { registry: 'anaconda.org', verbs: { upload: 'publishes' } },
  sbt: { registry: 'the configured repository', verbs: { publish: 'publishes', publishSigned: 'publishes' } },
};
publishers.pnpm = publishers.npm!;

/** Long options of the publishing tools that take a value (so that the value is not read as a package). */
const publishValues = [
  'access',
  'tag',
  'otp',
  'registry',
  'repository',
  'repository-url',
  'new-version',
  'workspace',
  'filter',
  'dir',
  'config',
  'username',
  'password',
  'token',
  'index',
  'publish-url',
  'api-key',
  'source',
  'key',
  'message',
  'version',
  'comment',
  'identity',
  'skip',
];

/** Flags that make a publishing verb change nothing. */
const dryRun = /^(--dry-run|--dryrun|--dry|--snapshot|--skip=publish|--list)$/;

/** The verbs of a tool's registry that this argv names, with what they say; undefined when none. */
function published(
  label: string,
  argv: Arg[],
): { verb: string; does: string; rest: Arg[]; registry: string } | undefined {
  const spec = publishers[label];
  if (!spec || argv.some((a) => dryRun.test(a.value))) return undefined;
  const words = parseOptions(argv.slice(1), { shortValue: 'C', longValue: publishValues }).operands;
  for (const n of [3, 2, 1]) {
    const verb = words
      .slice(0, n)
      .map((w) => w.value)
      .join(' ');
    const does = spec.verbs[verb];
    if (does && words.length >= n) {
      // cargo and gem list owners without --add/--remove; yank --undo still changes what installs get.
      if (verb === 'owner' && !argv.some((a) => /^(--add|--remove|-a|-r)(=|$)/.test(a.value))) return undefined;
      return { verb, does, rest: words.slice(n), registry: spec.registry };
    }
  }
  return undefined;
}

/** What a verb publishes or changes: its first operand (`npm publish dist`), or the last for the verbs that name a
 * person first (`npm owner add bob my-lib`); the package here when none is named. */
function what(verb: string, rest: Arg[]): string {
  const named = rest.filter((a) => !/^(\.|\.\/)?$/.test(a.value));
  const one = /^(owner|access|team|org|npm tag|tag)\b/.test(verb) ? named[named.length - 1] : named[0];
  return one ? shown(one) : 'the package here';
}

/** Package managers' built-in commands: any other first word runs a package's binary or a script of that name. */
const builtins: Record<string, RegExp> = {
  pnpm: new RegExp(
    '^(add|i|install|ln|link|unlink|update|up|upgrade|remove|rm|un|uninstall|import|rebuild|rb|prune|fetch|patch|' +
      'patch-commit|patch-remove|audit|list|ls|ll|outdated|why|licenses|run|run-script|test|t|tst|start|restart|' +
      'stop|create|init|pack|publish|recursive|multi|m|server|store|root|bin|setup|deploy|doctor|config|c|get|set|' +
      'env|cat-file|cat-index|find-hash|self-update|approve-builds|ignored-builds|dedupe|help|version|exec|dlx|' +
      'install-test|it|outdated|node|catalog|sbom)$',
  ),
  yarn: new RegExp(
    '^(access|add|audit|autoclean|bin|cache|check|config|constraints|create|dedupe|dlx|exec|explain|generate-lock-' +
      'entry|global|help|import|info|init|install|licenses|link|list|login|logout|node|npm|outdated|owner|pack|' +
      'patch|patch-commit|plugin|policies|publish|rebuild|remove|run|search|set|stage|tag|team|test|unlink|' +
      'unplug|up|upgrade|upgrade-interactive|version|versions|why|workspace|workspaces)$',
  ),
};

/**
 * npm, pnpm, yarn and bun: global removal, publishing, and the binaries they run: `npm exec`/`npm x` (`--` or the
 * package's own name), `pnpm exec`/`pnpm dlx`/`yarn dlx`/`yarn exec`/`bun x`, and a first word that is no command of
 * theirs (`pnpm prisma migrate reset`), which is a package's binary or a script.
 */
const nodePackages =
  (label: string): Rule =>
  (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), { shortValue: 'Cwc', longValue: ['filter', 'prefix', 'workspace', 'dir'] });
    const verb = p.operands[0]?.value ?? '';
    if (/^(uninstall|un|rm|remove|r|unlink)$/.test(verb) && hasAny(p, '-g', '--global'))
      return kit.emit(c, 'dangerous', 'package.remove', `removes globally installed packages (${label} ${verb} -g)`);
    if (label === 'yarn' && verb === 'global' && p.operands[1]?.value === 'remove')
      return kit.emit(c, 'dangerous', 'package.remove', 'removes globally installed packages (yarn global remove)');
    securityConfig(label, p.operands, c, kit);
    const pub = published(label, argv);
    if (pub)
      return kit.emit(
        c,
        'dangerous',
        'publish.package',
        `${pub.does} ${what(pub.verb, pub.rest)} on ${pub.registry}, in public (${label} ${pub.verb})`,
        p.operands[0],
      );
    const at = argv.indexOf(p.operands[0]!);
    const rest = at > 0 ? argv.slice(at + 1) : [];
    const runs =
      (label === 'npm' && /^(exec|x)$/.test(verb)) ||
      (label !== 'npm' && /^(exec|dlx|x)$/.test(verb)) ||
      (builtins[label] !== undefined && verb !== '' && !builtins[label]!.test(verb) && isKnown(p.operands[0]!));
    if (!runs) return;
    if (!/^(exec|dlx|x)$/.test(verb)) return void kit.run(c, argv.slice(at));
    const dash = rest.findIndex((a) => a.value === '--');
    const cmd = dash >= 0 ? rest.slice(dash + 1) : rest.slice(parseOptions(rest, { posix: true }).rest);
    if (cmd.length) kit.run(c, cmd);
  };

/**
 * A package manager told to stop checking what it downloads: `npm config set strict-ssl false`, `yarn config set
 * enableStrictSsl false`, `pip config set global.trusted-host …`.
 */
function securityConfig(label: string, ops: Arg[], c: CommandContext, kit: RuleKit): void {
  const w = ops.map((a) => a.value);
  const set = w[0] === 'set' ? w.slice(1) : w[0] === 'config' && w[1] === 'set' ? w.slice(2) : undefined;
  if (!set) return;
  const [key = '', value = ''] = set[0]?.includes('=') ? set[0].split('=') : set;
  const off =
    (/^(strict-ssl|strict_ssl|enableStrictSsl|strictSsl)$/i.test(key) && /^(false|0)$/i.test(value)) ||
    /^(global|install|user)\.trusted-host$/.test(key) ||
    (/^(ca|cafile|cert)$/.test(key) && value === '');
  if (off)
    kit.emit(
      c,
      'dangerous',
      'security.off',
      `turns off TLS checks of downloads (${label} config set ${key} ${value})`.replace(' )', ')'),
    );
}

/** A package manager that removes packages, publishes to its registry, or both. */
export const packages =
  (label: string): Rule =>
  (argv, c, kit) => {
    const { sub } = subcommand(argv, /^(-o|-c|--option|--config-file)$/);
    if (sub && removers[label]?.test(sub.value))
      kit.emit(
        c,
        'dangerous',
        'package.remove',
        `removes installed packages (${label} ${sub.value} ${argv
          .slice(argv.indexOf(sub) + 1)
          .filter((a) => !a.value.startsWith('-'))
          .map(shown)
          .join(' ')})`.trim(),
        sub,
      );
    securityConfig(label, parseOptions(argv.slice(1)).operands, c, kit);
    const pub = published(label, argv);
    if (pub)
      kit.emit(
        c,
        'dangerous',
        'publish.package',
        `${pub.does} ${what(pub.verb, pub.rest)} on ${pub.registry}, in public (${label} ${pub.verb})`,
      );
  };

/** Maven goals and Gradle tasks that upload to a remote repository (publishToMavenLocal stays on this machine). */
const buildPublish =
  (label: string, goal: RegExp): Rule =>
  (argv, c, kit) => {
    if (argv.some((a) => /^(--dry-run|-m)$/.test(a.value))) return;
    const hit = argv.slice(1).find((a) => goal.test(a.value) && !/Local$/.test(a.value));
    if (hit)
      kit.emit(
        c,
        'dangerous',
        'publish.package',
        `publishes artifacts to a remote repository (${label} ${hit.value})`,
        hit,
      );
  };

/** `dotnet nuget push` publishes; `dotnet ef database drop` is databaseRules' (it calls this for the rest). */
export const dotnetNuget: Rule = (argv, c, kit) => {
  const words = parseOptions(argv.slice(1), { longValue: ['source', 'api-key', 'project'] }).operands.map(
    (a) => a.value,
  );
  if (words[0] !== 'nuget' || !/^(push|delete)$/.test(words[1] ?? '')) return;
  const does = words[1] === 'push' ? 'publishes' : 'removes';
  kit.emit(
    c,
    'dangerous',
    'publish.package',
    `${does} ${words[2] ?? 'a package'} on a NuGet feed (dotnet nuget ${words[1]})`,
  );
};

const dpkg: Rule = (argv, c, kit) => {
  if (argv.some((a) => /^(-r|-P|--remove|--purge)$/.test(a.value)))
    kit.emit(c, 'dangerous', 'package.remove', 'removes installed packages (dpkg --remove)');
};
const rpm: Rule = (argv, c, kit) => {
  if (argv.some((a) => /^(-e|--erase)$/.test(a.value) || /^-e/.test(a.value)))
    kit.emit(c, 'dangerous', 'package.remove', 'removes installed packages (rpm -e)');
};
const pacman: Rule = (argv, c, kit) => {
  if (argv.some((a) => /^-R/.test(a.value) || a.value === '--remove'))
    kit.emit(c, 'dangerous', 'package.remove', 'removes installed packages (pacman -R)');
};

/** `np` and semantic-release publish whenever they run (unless told it is a dry run). */
const alwaysPublishes =
  (label: string): Rule =>
  (argv, c, kit) => {
    if (!argv.some((a) => /^(--dry-run|-d|--preview|--help|-h|--version)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'publish.package', `publishes a release of the package here (${label})`);
  };

const names = new Set([...Object.keys(removers), ...Object.keys(publishers)]);
// npm, pnpm, yarn and bun are nodePackages; poetry, uv, pdm and hatch are wrappers (`poetry run …`) that fall back
// on packages() for their other verbs.
for (const n of ['npm', 'pnpm', 'yarn', 'bun', 'poetry', 'uv', 'pdm', 'hatch']) names.delete(n);

/** bun is a package manager (`bun publish`, `bun x`) and runs JavaScript (`bun -e`, `bun script.ts`). */
const bunCommands = new RegExp(
  '^(install|i|add|a|remove|rm|update|outdated|link|unlink|pm|publish|x|init|create|upgrade|build|test|patch|' +
    'audit|info)$',
);
const bun: Rule = (argv, c, kit) => {
  const first = argv.slice(1).find((a) => !a.value.startsWith('-'))?.value ?? '';
  return bunCommands.test(first) ? nodePackages('bun')(argv, c, kit) : interpreter('node')(argv, c, kit);
};

export const packageRules: Record<string, Rule> = {
  ...Object.fromEntries([...names].map((k) => [k, packages(k)])),
  npm: nodePackages('npm'),
  pnpm: nodePackages('pnpm'),
  yarn: nodePackages('yarn'),
  bun,
  mvn: buildPublish('mvn', /^(deploy|release:perform|deploy:deploy(-file)?)$/),
  mvnw: buildPublish('mvnw', /^(deploy|release:perform|deploy:deploy(-file)?)$/),
  gradle: buildPublish('gradle', /^(:?[\w-]+:)*publish\w*$/),
  gradlew: buildPublish('gradlew', /^(:?[\w-]+:)*publish\w*$/),
  np: alwaysPublishes('np'),
  'semantic-release': alwaysPublishes('semantic-release'),
  dpkg,
  rpm,
  pacman,
  yay: pacman,
};

export const packageExamples: RuleExamples = {
  'security.off': {
    match: [
      'npm config set strict-ssl false',
      'yarn config set strict-ssl false',
      'pip config set global.trusted-host x',
    ],
    notMatch: ['npm config set registry https://registry.npmjs.org/', 'npm config get strict-ssl'],
  },
  'package.remove': {
    match: [
      'apt-get remove -y nginx',
      'npm uninstall -g typescript',
      'yarn global remove x',
      'pip uninstall requests',
      'dpkg -r curl',
    ],
    notMatch: ['apt-get install -y curl', 'npm uninstall lodash', 'pip install -r requirements.txt'],
  },
  'publish.package': {
    match: [
      'npm publish',
      'npm unpublish my-lib@1.0.1 --force',
      'npm dist-tag add my-lib@1.2.0 latest',
      'pnpm -r publish --access public',
      'yarn npm publish',
      'cargo publish',
      'cargo owner --add bob',
      'gem push x-1.0.gem',
      'twine upload dist/*',
      'poetry publish --build',
      'npx lerna publish from-package --yes',
      'mvn deploy',
      './gradlew publish',
      'dotnet nuget push App.nupkg --source nuget.org',
      'docker push ghcr.io/acme/web:v1',
      'docker buildx build --push -t acme/web .',
    ],
    notMatch: [
      'npm publish --dry-run',
      'npm dist-tag ls my-lib',
      'npm pack',
      'cargo publish --dry-run',
      'cargo owner --list',
      'twine check dist/*',
      'gem build x.gemspec',
      './gradlew publishToMavenLocal',
      'mvn package',
      'docker build -t acme/web .',
      'docker pull acme/web',
    ],
  },
};
