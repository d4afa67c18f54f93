// What code does, in the terms the policy judges (the shared capability table of the Python and JavaScript
// analysers): runs shell text or an argv, deletes or writes a path, reads one, reaches the network, runs code it
// computes. Each effect becomes a finding here, with the same path rules the shell scanner uses.
import { isBlockDevice, profileFinding, resolveLiteralPath, secretRead, sensitiveWrite, vitalPath } from '../paths.js';
import { metadataHost } from '../rules/networkRules.js';
import { UNKNOWN, type Finding } from '../scanTypes.js';
import type { RuleId } from '../ruleIds.js';

/** Where the code runs: the target's home and cwd, the Switchboard profile, and how reasons name the code. */
export interface CodePlace {
  home: string;
  cwd?: string;
  profile?: string;
  /** `code` for execute_code, `python3 code` for a `-c` payload. */
  how: string;
}

/** A finding, or shell text the code runs, which the caller classifies with the bash policy. */
export type CodeFinding = (Finding & { shell?: undefined }) | { shell: string; via: string };

/** How run-time parts of a command read in the shell text handed to the scanner: an unknown variable. */
const runtimeWord = '"$RUNTIME_VALUE"';

/** One argv item as a shell word: known parts quoted, run-time parts an unknown variable. */
export function shellWord(item: string): string {
  return (
    item
      .split(UNKNOWN)
      .map((part) => (part === '' ? '' : /^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`))
      .join(runtimeWord) || "''"
  );
}

/**
 * Shell text with its run-time parts as unknown variables, in any quoting: inside single quotes the quote is closed
 * around the variable, so `'%s' -rf /` with a computed `%s` stays a command the scanner cannot name.
 */
export function shellText(text: string): string {
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === UNKNOWN) {
      out += quote === "'" ? `'${runtimeWord}'` : quote === '"' ? '$RUNTIME_VALUE' : runtimeWord;
      continue;
    }
    out += ch;
    if (ch === '\\' && quote !== "'") out += text[++i] ?? '';
    else if ((ch === "'" || ch === '"') && (quote === undefined || quote === ch)) quote = quote ? undefined : ch;
  }
  return out;
}

/** A shell started without a command or script reads its commands from stdin, which the code writes. */
const loneShell = /^(.*\/)?(sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh)$/;

/** Names of calls that change the file they are given. */
const changesFiles = new RegExp(
  '^(write|dump|save|to_|copy|move|rename|replace|remove|unlink|rm|chmod|chown|symlink|link|truncate|' +
    'touch|mkdir|makedirs|put|upload|extract|append|store|create|open_?w)',
  'i',
);

const secretFileName = new RegExp(
  String.raw`^(\.netrc|\.git-credentials|\.pgpass|\.pypirc|\.npmrc|\.my\.cnf|credentials(\.json)?|id_(rsa|` +
    String.raw`ed25519|ecdsa|dsa)|.*\.pem)$`,
);

/** Files whose reading hands over a secret: private keys, cloud and package credentials, .env files, shadow. */
function secretFile(resolved: string): boolean {
  if (resolved.includes(UNKNOWN) || /\.pub$|\/known_hosts$|\/\.ssh\/config$/.test(resolved)) return false;
  const base = resolved.slice(resolved.lastIndexOf('/') + 1);
  return (
    /\/\.ssh\//.test(resolved) ||
    /\/\.(aws|gnupg|azure|config\/gcloud|config\/gh|terraform\.d)\//.test(resolved) ||
    /\/\.(kube\/config|docker\/config\.json)$/.test(resolved) ||
    secretFileName.test(base) ||
    (/^\.env(\..+)?$|\.env$/.test(base) && !/\.(example|sample|template|dist|defaults)$/.test(base)) ||
    /^\/etc\/(shadow|gshadow|sudoers)$/.test(resolved)
  );
}

export class CodeEffects {
  private readonly out: CodeFinding[] = [];
  private secret: string | undefined;
  private sends: string | undefined;

  constructor(private readonly place: CodePlace) {
    this.cwd = place.cwd;
  }

  private resolve(path: string): string {
    return resolveLiteralPath(path, this.cwd, this.place.home, this.place.profile);
  }

  /** The directory the code has moved to (os.chdir, process.chdir); relative paths and commands run there. */
  private cwd: string | undefined;
  private moved = false;

  chdir(path: string | undefined): void {
    this.cwd = path === undefined ? UNKNOWN : this.resolve(path);
    this.moved = true;
  }

  /** Shell text as it runs after the code changed directory: `cd DIR && …`, which the scanner follows. */
  private there(text: string): string {
    return this.moved && this.cwd !== undefined ? `cd ${shellWord(this.cwd)} && ${text}` : text;
  }

  private push(f: Finding): void {
    if (!this.out.some((x) => x.shell === undefined && x.rule === f.rule && x.text === f.text)) this.out.push(f);
  }

  ask(rule: RuleId, text: string): void {
    this.push({ severity: 'dangerous', rule, text });
  }

  hardline(rule: RuleId, text: string): void {
    this.push({ severity: 'hardline', rule, text });
  }

  /** Shell text the code hands to `sh -c` (os.system, exec): undefined when it is computed at run time. */
  shell(text: string | undefined, via: string, decoded?: string): void {
    if (decoded) this.ask('remote.decoded-shell', `runs decoded text in a shell (${via} of ${decoded})`);
    if (text === undefined || text.trim() === UNKNOWN)
      this.ask('code.shell', `runs a shell command computed at run time (${via})`);
    else this.out.push({ shell: this.there(shellText(text)), via });
  }

  /** A program and its arguments (subprocess.run([...]), spawn): judged as the shell command they spell. */
  argv(items: string[] | undefined, via: string, decoded?: string): void {
    if (decoded) this.ask('remote.decoded-shell', `runs a decoded command (${via} of ${decoded})`);
    if (items === undefined || items.length === 0 || (items.length === 1 && items[0] === UNKNOWN))
      this.ask('code.run', `runs a command computed at run time (${via})`);
    else if (loneShell.test(items[0]!) && items.slice(1).every((a) => /^-[a-z]*$/.test(a) && !a.includes('c')))
      this.ask('code.shell', `starts a shell that reads its commands from the code (${via} ${items[0]})`);
    else this.out.push({ shell: this.there(items.map(shellWord).join(' ')), via });
  }

  /** A delete of one file, or of a directory tree (`tree`); `path` is undefined when computed at run time. */
  delete(path: string | undefined, tree: boolean, via: string): void {
    if (path !== undefined) {
      const p = this.resolve(path);
      const profile = profileFinding(p, this.place.profile, true, `${via} in ${this.place.how}`);
      if (profile) return this.push(profile);
      if (tree && !p.includes(UNKNOWN) && vitalPath(p, this.place.home))
        return this.hardline('delete.vital', `recursive delete of ${p} (${via})`);
      if (!tree) {
        const why = sensitiveWrite(p);
        if (why) this.ask('write.sensitive', `deletes ${p}: ${why} (${via})`);
        return;
      }
      return this.ask('delete.tree', `deletes a directory tree ${p.includes(UNKNOWN) ? '' : `${p} `}(${via})`);
    }
    if (tree) this.ask('delete.tree', `deletes a directory tree (${via})`);
  }

  /** A write, move target, link, mode change or truncation of a path. */
  write(path: string | undefined, via: string): void {
    if (path === undefined) return;
    const p = this.resolve(path);
    const profile = profileFinding(p, this.place.profile, true, `${via} in ${this.place.how}`);
    if (profile) return this.push(profile);
    if (isBlockDevice(p)) return this.hardline('disk.overwrite', `overwrites the disk device ${p} (${via})`);
    if (p === '/proc/sysrq-trigger')
      return this.hardline('power.sysrq', `triggers a kernel reboot or crash (${via} /proc/sysrq-trigger)`);
    const why = sensitiveWrite(p);
    if (why) this.ask('write.sensitive', `writes to ${p}: ${why} (${via})`);
  }

  /** Files written under a directory (an archive unpacked there): into `/`, a system directory or the home asks. */
  writeTree(path: string, via: string): void {
    this.write(path, via);
    const p = this.resolve(path);
    if (!p.includes(UNKNOWN) && vitalPath(p, this.place.home))
      this.ask('write.tree', `unpacks files into ${p} (${via})`);
  }

  /**
   * A file the code reads: the agent token is refused; a key or credentials file asks, as `cat` of it does in a
   * shell command (paths.ts secretRead, the same list), and matters more if the code also reaches the network.
   */
  read(path: string | undefined, via: string): void {
    if (path === undefined) return;
    const p = this.resolve(path);
    const profile = profileFinding(p, this.place.profile, false, `${via} in ${this.place.how}`);
    if (profile) return this.push(profile);
    const secret = p.includes(UNKNOWN) ? undefined : secretRead(p);
    if (secret) this.ask('secret.read', `reads ${p}: ${secret} (${via} in ${this.place.how})`);
    if (secret || secretFile(p)) this.secret ??= p;
  }

  /**
   * A string the code hands to a call, `callee` naming the function or method: naming the token file is refused, as
   * in a shell command, and so is naming anything in the profile to a call whose name says it changes files (a
   * library's `to_csv`, `dump`, `save`) — calls the analysis does not model by themselves.
   */
  mention(text: string, callee: string): void {
    if (text.length > 512 || !/\/|core\.json/.test(text) || /^[a-z]+:\/\//i.test(text)) return;
    const f = profileFinding(
      this.resolve(text),
      this.place.profile,
      changesFiles.test(callee.replace(/^.*\./, '')),
      `${callee} in ${this.place.how}`,
    );
    if (f) this.push(f);
  }

  /** A connection or request; `target` is its URL or host when known. */
  network(target: string | undefined, via: string): void {
    this.sends ??= via;
    const host = target === undefined ? undefined : metadataHost(target);
    if (host)
      this.ask(
        'network.metadata',
        `reaches the cloud metadata endpoint, where machine credentials live (${host}, ${via})`,
      );
  }

  findings(): CodeFinding[] {
    if (this.secret && this.sends)
      this.ask('network.upload-secret', `reads ${this.secret} and sends data over the network (${this.sends})`);
    return this.out;
  }
}
