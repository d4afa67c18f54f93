// Which paths matter: system directories and the home (deleting them is hardline), block devices, and the
// files whose change hands over a machine or a secret (/etc, ~/.ssh, shell rc files, .env, credentials).
// Over 380 lines: the tables of paths that matter and the one resolver every rule reads them through, kept whole.
import { posix } from 'node:path';
import { UNKNOWN, type Finding } from './scanTypes.js';

/** A path made absolute against cwd and home where they are known; `~` stays when the home is unknown. */
export function resolvePath(p: string, cwd: string | undefined, home: string): string {
  let path = p;
  if (path === '~' || path.startsWith('~/')) path = home + path.slice(1);
  if (!path.startsWith('/') && !path.startsWith('~')) {
    if (!cwd) return posix.normalize(path);
    path = `${cwd}/${path}`;
  }
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** Top-level directories that hold the system; a recursive delete of one (or of `/`) is hardline. */
const systemDirs = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'srv',
  'sys',
  'usr',
  'var',
  'snap',
  'mnt',
  'media',
  'System',
  'Library',
  'Applications',
  'Users',
  'Volumes',
  'private',
  'cores',
]);
/** Second-level directories as vital as their parent. */
const systemSubdirs = /^\/(usr|usr\/local|var|private|private\/var|System|Library)\/[^/]+$/;
const keptSubdirs = /^\/(var\/tmp|var\/cache|var\/log|usr\/src|usr\/local\/src|var\/folders|private\/tmp)(\/|$)/;

export interface PathClass {
  kind: 'root' | 'system' | 'home';
}

/** Is this resolved path `/`, a system directory or the home directory (or a glob over them)? */
export function vitalPath(resolved: string, home: string): PathClass | undefined {
  const p = resolved.replace(/\/\*$/, '').replace(/\/\.\*$/, '') || '/';
  if (p === '/' || p === '/*' || /^\/[*?]+$/.test(p)) return { kind: 'root' };
  if (p === home || p === '~' || (home !== '~' && p === posix.dirname(home) && p !== '/'))
    return { kind: p === home || p === '~' ? 'home' : 'system' };
  if (/^\/home\/[^/]+$/.test(p) || /^\/Users\/[^/]+$/.test(p)) return { kind: 'home' };
  const top = /^\/([^/]+)$/.exec(p);
  if (top && (systemDirs.has(top[1]!) || /[*?[]/.test(top[1]!))) return { kind: 'system' };
  if (systemSubdirs.test(p) && !keptSubdirs.test(p)) return { kind: 'system' };
  return undefined;
}

const blockDevicePath = new RegExp(
  String.raw`^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|dm-\d|mapper\/|loop\d|` +
    String.raw`sr\d|mem$|kmem$|port$|root$|block\/)`,
);

/** Block devices and raw memory: writing to one destroys a disk (hardline). */
export function isBlockDevice(p: string): boolean {
  return blockDevicePath.test(p);
}

const rcFiles = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.mkshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.logout',
  '.inputrc',
  'config.fish',
  '.xinitrc',
  '.xprofile',
  '.xsession',
  '.xsessionrc',
  '.pam_environment',
  '.envrc',
]);
/** Files other programs run as commands when they start: an editor's, a pager's, a REPL's, a client's rc file. */
const startupScripts = new Set([
  '.vimrc',
  '.gvimrc',
  '.exrc',
  '.nvimrc',
  '.tmux.conf',
  '.screenrc',
  '.emacs',
  '.irbrc',
  '.pryrc',
  '.pythonrc',
  '.pythonrc.py',
  '.psqlrc',
  '.sqliterc',
  '.curlrc',
  '.wgetrc',
  '.Rprofile',
  '.lesskey',
  '.editrc',
  '.gdbinit',
  'sitecustomize.py',
  'usercustomize.py',
]);
const credentialFiles = new Set([
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.yarnrc',
  '.yarnrc.yml',
  '.gitconfig',
  'credentials',
  'credentials.json',
  'id_rsa',
  'id_ed25519',
  'id_ecdsa',
  'id_dsa',
  'authorized_keys',
  'known_hosts',
  '.htpasswd',
  'shadow',
  'sudoers',
]);
const credentialDirs = /\/\.(ssh|aws|gnupg|kube|docker|azure|gcloud|config\/gcloud|config\/gh|terraform\.d)(\/|$)/;

const startupServicePath = new RegExp(
  String.raw`\/\.config\/(systemd|autostart|environment\.d|plasma-workspace\/env)(\/|$)|` +
    String.raw`\/\.local\/share\/systemd(\/|$)|\/\.kde4?\/Autostart(\/|$)`,
);

/** Why writing this path would ask, or undefined. `resolved` is absolute (or `~/…` when the home is unknown). */
export function sensitiveWrite(resolved: string): string | undefined {
  if (resolved.includes(UNKNOWN)) return undefined;
  const base = posix.basename(resolved);
  if (/^(\/private)?\/etc(\/|$)/.test(resolved)) return 'system configuration under /etc';
  if (/\/\.ssh(\/|$)/.test(resolved)) return 'SSH keys and access under ~/.ssh';
  if (rcFiles.has(base) || /\/\.config\/fish\//.test(resolved)) return 'a shell startup file';
  if (startupScripts.has(base) || /\/\.config\/nvim\/|\/\.emacs\.d\/init\.el$/.test(resolved))
    return 'a file another program runs at start';
  if (/\/site-packages\/[^/]*\.pth$/.test(resolved)) return 'a .pth file that Python runs at every start';
  if (/\/\.git\/config$|\/\.config\/git\/config$/.test(resolved)) return 'git configuration, which can run commands';
  if (
    base === '.env' ||
    (/^\.env\./.test(base) && !/\.(example|sample|template|dist|defaults)$/.test(base)) ||
    base.endsWith('.env')
  )
    return 'an environment file with secrets (.env)';
  if (credentialFiles.has(base) || credentialDirs.test(resolved)) return 'a credentials file';
  if (
    /^\/(boot|bin|sbin|lib|lib32|lib64|usr\/(bin|sbin|lib|lib64|libexec|share)|usr\/local\/(bin|sbin|lib))(\/|$)/.test(
      resolved,
    )
  )
    return 'system files';
  if (
    /^\/(var\/spool\/cron|var\/at|Library\/LaunchDaemons|Library\/LaunchAgents)(\/|$)/.test(resolved) ||
    /\/Library\/LaunchAgents(\/|$)/.test(resolved)
  )
    return 'scheduled jobs';
  if (/^\/(proc|sys)\//.test(resolved)) return 'kernel settings';
  if (/\/\.git\/hooks\//.test(resolved)) return 'a git hook that runs on later commands';
  if (startupServicePath.test(resolved)) return 'a startup service';
  return undefined;
}

/** What a path names in the Switchboard profile: a file holding the agent token, or anything else in it. */
export type ProfilePart = 'token' | 'profile';

/** Files in the profile that hold the agent token: core.json and the temporary file it is published from. */
const tokenFile = /^core\.json($|\.)/;

/** One path segment of a glob as a regular expression (`*`, `?`, `[…]`); plain text matches itself. */
function segmentPattern(seg: string): RegExp {
  // As in bash without dotglob, a leading wildcard does not match a leading dot.
  let re = /^[*?[]/.test(seg) ? '(?!\\.)' : '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i]!;
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      const end = seg.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        re += `[${seg
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Does this resolved path (a glob too: `~/.sw*`, `$SWITCHBOARD_HOME/*`) name the profile, something in it, or a
 * file holding the token? `profile` is absolute and normalised. A path known only at run time names nothing here.
 */
export function profilePart(resolved: string, profile: string | undefined): ProfilePart | undefined {
  if (!profile || resolved.includes(UNKNOWN) || !resolved.startsWith('/')) return undefined;
  if (!/[*?[]/.test(resolved)) {
    if (resolved === profile) return 'profile';
    if (!resolved.startsWith(`${profile}/`)) return undefined;
    return tokenFile.test(resolved.slice(profile.length + 1)) ? 'token' : 'profile';
  }
  const want = profile.split('/').filter(Boolean);
  const have = resolved.split('/').filter(Boolean);
  if (have.length < want.length) return undefined;
  for (let i = 0; i < want.length; i++) if (!segmentPattern(have[i]!).test(want[i]!)) return undefined;
  if (have.length === want.length + 1 && segmentPattern(have[want.length]!).test('core.json')) return 'token';
  return 'profile';
}

/**
 * The hardline finding for a path in the profile: any change to it (`change`), or a read of a file holding the
 * token. Config and rules change only through a person; the token is what lets a caller act as an agent.
 */
export function profileFinding(
  resolved: string,
  profile: string | undefined,
  change: boolean,
  how: string,
): Finding | undefined {
  const part = profilePart(resolved, profile);
  if (!part || (!change && part !== 'token')) return undefined;
  if (change)
    return {
      severity: 'hardline',
      rule: 'profile.write',
      text:
        `changes ${resolved} in the Switchboard profile; its config and rules change only through a person ` +
        `(${how})`,
    };
  return {
    severity: 'hardline',
    rule: 'profile.read',
    text: `reads ${resolved}, which holds the Switchboard agent token (${how})`,
  };
}

/**
 * A path written as a literal in a program: `~`, `$HOME` and `$SWITCHBOARD_HOME` at its start read as the shell would.
 */
export function resolveLiteralPath(
  literal: string,
  cwd: string | undefined,
  home: string,
  profile: string | undefined,
): string {
  const m = /^\$\{?(HOME|SWITCHBOARD_HOME)\}?(?=\/|$)/.exec(literal);
  const path = !m
    ? literal
    : m[1] === 'HOME'
      ? home + literal.slice(m[0].length)
      : profile
        ? profile + literal.slice(m[0].length)
        : literal;
  return resolvePath(path, cwd, home);
}

const scratchPaths = new RegExp(
  String.raw`^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/|pts\/)|^\/proc\/self\/fd\/|^\/(private\/)?(tmp|` +
    String.raw`var\/tmp)(\/|$)`,
);

/** Where writing is scratch: the bit bucket, terminals and temporary directories. */
export function scratchPath(resolved: string): boolean {
  return scratchPaths.test(resolved);
}

/** Is `resolved` inside the workspace (the cwd a command started in)? A relative path, when no cwd is known, is. */
export function inWorkspace(resolved: string, workspace: string | undefined): boolean {
  if (!resolved.startsWith('/') && !resolved.startsWith('~')) return true;
  return (
    workspace !== undefined &&
    (resolved === workspace || resolved.startsWith(workspace === '/' ? '/' : `${workspace}/`))
  );
}

const buildOutputDir = new RegExp(
  String.raw`(^|\/)(build|dist|out|target|tmp|temp|\.cache|cache|coverage|logs?|node_modules|__pycache__|` +
    String.raw`\.next|\.nuxt|\.turbo|\.parcel-cache|\.pytest_cache|\.tox|obj|bin\/(Debug|Release))(\/)`,
);

/** Build output, logs and caches in a workspace: emptying them is everyday (`> build.log`, `truncate -s0 out/x`). */
export function buildOutput(resolved: string): boolean {
  const base = posix.basename(resolved);
  if (/\.(log|out|err|tmp|temp|pid|lock|o|obj|pyc|class|cache|bak|swp)$|^nohup\.out$|\.log\.\d+$/.test(base))
    return true;
  return buildOutputDir.test(resolved);
}

/** Directories that builds, test runs and package managers make, and make again: deleting one loses no work. */
const generatedDirs = new Set([
  'node_modules',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  'htmlcov',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.cache',
  '.angular',
  '.docusaurus',
  '.expo',
  '.vercel',
  '.netlify',
  '.serverless',
  'storybook-static',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.hypothesis',
  '.tox',
  '.nox',
  '.venv',
  'venv',
  '.eggs',
  '.gradle',
  '.dart_tool',
  'obj',
  '.nyc_output',
  '.eslintcache',
  '.DS_Store',
]);
const generatedFiles = /\.(pyc|pyo|o|obj|class|tsbuildinfo)$|\.egg-info$/;

/** A well-known output name (`node_modules`, `dist`, `__pycache__`, `x.pyc`): what a build makes, and makes again. */
export function generatedName(base: string): boolean {
  return generatedDirs.has(base) || generatedFiles.test(base);
}

/**
 * Does a path in the workspace lie in generated output by its names: some part below the workspace is a well-known
 * output name (`node_modules/.cache`, `packages/web/dist`, `build/*`)? The workspace itself, or a path outside it, is
 * not.
 */
export function inGeneratedOutput(resolved: string, workspace: string): boolean {
  if (resolved === workspace || !inWorkspace(resolved, workspace)) return false;
  return resolved
    .slice(workspace === '/' ? 1 : workspace.length + 1)
    .split('/')
    .some(generatedName);
}

/**
 * Why emptying or overwriting this path loses data, or undefined when it is scratch: emptying (`> f`, `truncate -s 0`,
 * `cp /dev/null f`, `dd of=f`) asks outside build output and scratch; an overwriting write asks outside the workspace.
 */
export function clobberWhy(resolved: string, workspace: string | undefined, empties: boolean): string | undefined {
  if (scratchPath(resolved)) return undefined;
  if (resolved.includes(UNKNOWN)) return empties ? 'a file named at run time' : undefined;
  const inside = inWorkspace(resolved, workspace);
  if (empties)
    return inside && buildOutput(resolved)
      ? undefined
      : inside
        ? 'a file in the workspace'
        : 'a file outside the workspace';
  return inside ? undefined : 'a file outside the workspace';
}

/** Key and credential files (and the directories holding them) whose contents are secrets. */
const secretFiles = new Set([
  'credentials',
  'credentials.json',
  'credentials.toml',
  'credentials.db',
  'access_tokens.db',
  'application_default_credentials.json',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  'credentials.tfrc.json',
  'hosts.yml',
  '.s3cfg',
  '.boto',
  'rclone.conf',
  'auth.json',
  'secring.gpg',
  'shadow',
  'gshadow',
  'master.passwd',
  'opasswd',
  'Login Data',
  'Cookies',
  'logins.json',
  'key4.db',
  'key3.db',
  '.pypirc',
]);
const secretDirs = new RegExp(
  String.raw`\/\.(aws|gnupg|password-store|docker|kube|azure|terraform\.d)(\/|$)|\/\.config\/(gcloud|gh|hub|` +
    String.raw`rclone)(\/|$)|^\/etc\/ssl\/private(\/|$)|\/\.local\/share\/keyrings(\/|$)|` +
    String.raw`^\/(var\/)?run\/secrets(\/|$)`,
);

/**
 * Why reading this path hands over a secret, or undefined: private keys (~/.ssh but its public parts), cloud and
 * registry credentials, password databases, other processes' environments. Globs count: `~/.ssh/*` has the keys.
 */
export function secretRead(resolved: string): string | undefined {
  if (/[*?[]/.test(resolved) && !resolved.includes(UNKNOWN)) {
    const plain = secretReadOne(resolved);
    return (
      plain ??
      globVariants(resolved)
        .map(secretReadOne)
        .find((why) => why !== undefined)
    );
  }
  return secretReadOne(resolved);
}

/** Names a glob segment is tried against: what the secret paths are made of, and a user name. */
const probeNames = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.kube',
  '.docker',
  '.config',
  '.netrc',
  '.git-credentials',
  '.pgpass',
  'gcloud',
  'gh',
  'credentials',
  'id_rsa',
  'id_ed25519',
  'id_ecdsa',
  'config.json',
  'config',
  'shadow',
  'environ',
  'self',
  '1',
  'user',
];

/** The secret-shaped paths a glob can match (`~/.s*\/id_*`, `/home/*\/.ssh/id_rsa`), a bounded few. */
function globVariants(glob: string): string[] {
  let out = [''];
  for (const seg of glob.split('/').slice(1)) {
    // A bare `*` stands for any one name (a user, a pid); a pattern with letters for the names it can match.
    const options = !/[*?[]/.test(seg)
      ? [seg]
      : /^\*+$/.test(seg)
        ? ['user', '1']
        : probeNames.filter((n) => segmentPattern(seg).test(n));
    out = out.flatMap((p) => options.map((o) => `${p}/${o}`)).slice(0, 64);
    if (out.length === 0) return [];
  }
  return out;
}

const registryTokenFile = new RegExp(
  String.raw`^(~|\/root|\/home\/[^/]+|\/Users\/[^/]+)\/(\.npmrc|\.yarnrc(\.yml)?|\.gem\/credentials|` +
    String.raw`\.cargo\/credentials(\.toml)?)$`,
);

function secretReadOne(resolved: string): string | undefined {
  const base = posix.basename(resolved);
  if (/^\/proc\/[^/]+\/(environ|mem)$|^\/dev\/k?mem$|^\/proc\/kcore$/.test(resolved))
    return resolved.endsWith('environ') ? "a process's environment, with its secrets" : 'memory';
  if (resolved.includes(UNKNOWN)) return undefined;
  const ssh = /\/\.ssh(\/(.*))?$/.exec(resolved);
  if (ssh)
    return !ssh[2] || !/^(config|known_hosts(\.old)?|authorized_keys2?|[^/]*\.pub|rc|environment)$/.test(ssh[2])
      ? 'SSH private keys'
      : undefined;
  if (/^\/etc\/ssh\/ssh_host_[a-z0-9]+_key$|^\/etc\/.*(privkey[^/]*\.pem|\.key)$/.test(resolved))
    return 'a private key';
  if (secretDirs.test(resolved)) {
    // A tool's plain settings beside its credentials are not secret (~/.aws/config, ~/.docker/daemon.json).
    if (/\/\.aws\/config$|\/\.docker\/(daemon|features)\.json$|\/\.kube\/cache(\/|$)/.test(resolved)) return undefined;
    return 'credentials';
  }
  if (secretFiles.has(base) && !/^(hosts\.yml|auth\.json|Cookies|credentials\.json)$/.test(base)) return 'credentials';
  if (registryTokenFile.test(resolved)) return 'a registry token file';
  return undefined;
}
