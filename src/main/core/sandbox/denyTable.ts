// What agent work may never write, even inside a writable root, whether or not the path exists yet (data): the files
// and folders that run later outside the sandbox — in the person's shells, their git, their tools and agents. One
// table for bubblewrap and Seatbelt alike; a new entry is a row, and `sandbox.deny_write` adds a target's own.
//
// A row that exists is bound read-only over itself. A row that does not exist yet, inside a writable root, is created
// empty (a placeholder: a mount point) and bound read-only too, then removed when no sandbox uses it any more, unless
// a person wrote to it meanwhile; where an empty file would change what a tool does (bash reads ~/.bash_profile
// instead of ~/.profile once it exists), the placeholder holds what the file's absence meant.

/** Why a row is there, as a person reads it. */
export type DenyFamily =
  | 'shell start-up'
  | 'session start-up'
  | 'programs on PATH'
  | 'git'
  | 'language start-up'
  | 'tools that run programs'
  | 'toolchains and caches'
  | 'editors'
  | 'agents';

export interface DenyRow {
  /** Relative to the home (scope home) or to a repository's work tree (scope repository). */
  path: string;
  scope: 'home' | 'repository';
  kind: 'file' | 'dir';
  family: DenyFamily;
  /**
   * Created as a placeholder when missing. False where an empty stand-in would do harm (a graphical session script
   * that is executed, not sourced) or clutter a person's repository (`.gitmodules` shows in `git status`): such a row
   * holds only once the path exists.
   */
  create: boolean;
  /** A created file's text, where an empty file would not mean what the file's absence meant. */
  placeholder?: string;
}

const home = (
  path: string,
  kind: DenyRow['kind'],
  family: DenyFamily,
  extra: Partial<Pick<DenyRow, 'create' | 'placeholder'>> = {},
): DenyRow => ({ path, scope: 'home', kind, family, create: true, ...extra });

const repo = (path: string, kind: DenyRow['kind'], family: DenyFamily, create: boolean): DenyRow => ({
  path,
  scope: 'repository',
  kind,
  family,
  create,
});

/** A placeholder's first line: whoever finds the file knows what it is and that it may go. */
const stamp = (comment: string): string =>
  `${comment} Switchboard keeps this path read-only for agent sandboxes while one runs; it is removed after, ` +
  'unless you write to it.\n';

export const DENY_TABLE: readonly DenyRow[] = [
  // bash: a login shell reads the first of .bash_profile, .bash_login, .profile; the stand-ins keep that order.
  home('.bashrc', 'file', 'shell start-up'),
  home('.bash_profile', 'file', 'shell start-up', {
    placeholder:
      stamp('#') +
      'if [ -f "$HOME/.bash_login" ]; then . "$HOME/.bash_login"; elif [ -f "$HOME/.profile" ]; then . "$HOME/.profile"; fi\n',
  }),
  home('.bash_login', 'file', 'shell start-up', {
    placeholder: stamp('#') + '[ -f "$HOME/.profile" ] && . "$HOME/.profile"\n',
  }),
  home('.bash_logout', 'file', 'shell start-up'),
  home('.bash_aliases', 'file', 'shell start-up'),
  home('.profile', 'file', 'shell start-up'),
  home('.shinit', 'file', 'shell start-up'),
  home('.kshrc', 'file', 'shell start-up'),
  home('.mkshrc', 'file', 'shell start-up'),
  home('.cshrc', 'file', 'shell start-up'),
  home('.tcshrc', 'file', 'shell start-up'),
  home('.login', 'file', 'shell start-up'),
  home('.zshenv', 'file', 'shell start-up'),
  home('.zprofile', 'file', 'shell start-up'),
  home('.zshrc', 'file', 'shell start-up'),
  home('.zlogin', 'file', 'shell start-up'),
  home('.zlogout', 'file', 'shell start-up'),
  home('.oh-my-zsh', 'dir', 'shell start-up'),
  home('.config/fish', 'dir', 'shell start-up'),
  home('.config/nushell', 'dir', 'shell start-up'),
  home('.inputrc', 'file', 'shell start-up', { placeholder: stamp('#') + '$include /etc/inputrc\n' }),
  // What a graphical or systemd session starts.
  home('.pam_environment', 'file', 'session start-up'),
  home('.config/environment.d', 'dir', 'session start-up'),
  home('.config/autostart', 'dir', 'session start-up'),
  home('.config/systemd', 'dir', 'session start-up'),
  home('.local/share/systemd', 'dir', 'session start-up'),
  home('.config/plasma-workspace', 'dir', 'session start-up'),
  home('.xprofile', 'file', 'session start-up'),
  home('.xsessionrc', 'file', 'session start-up'),
  home('.xsession', 'file', 'session start-up', { create: false }),
  home('.xinitrc', 'file', 'session start-up', { create: false }),
  home('.Xresources', 'file', 'session start-up'),
  home('.local/share/applications', 'dir', 'session start-up'),
  home('.mailcap', 'file', 'session start-up'),
  // Folders a person's PATH holds (the Core's own PATH adds more, see sandboxPolicy).
  home('bin', 'dir', 'programs on PATH'),
  home('.local/bin', 'dir', 'programs on PATH'),
  // git's user configuration (core.fsmonitor, core.hooksPath, aliases run programs).
  home('.gitconfig', 'file', 'git'),
  home('.config/git', 'dir', 'git'),
  // Code a language runs when it starts.
  home('.local/lib', 'dir', 'language start-up'),
  home('.config/pip', 'dir', 'language start-up'),
  home('.pip', 'dir', 'language start-up'),
  home('.pydistutils.cfg', 'file', 'language start-up'),
  home('.condarc', 'file', 'language start-up'),
  home('.config/uv', 'dir', 'language start-up'),
  home('.node_modules', 'dir', 'language start-up'),
  home('.node_libraries', 'dir', 'language start-up'),
  home('.npmrc', 'file', 'language start-up'),
  home('.yarnrc', 'file', 'language start-up'),
  home('.yarnrc.yml', 'file', 'language start-up'),
  home('.irbrc', 'file', 'language start-up'),
  home('.gemrc', 'file', 'language start-up'),
  home('.perldb', 'file', 'language start-up'),
  home('.Rprofile', 'file', 'language start-up'),
  // Tools whose configuration names a program they run.
  home('.ssh', 'dir', 'tools that run programs'),
  home('.kube', 'dir', 'tools that run programs'),
  home('.aws', 'dir', 'tools that run programs'),
  home('.docker', 'dir', 'tools that run programs'),
  home('.config/containers', 'dir', 'tools that run programs'),
  home('.terraformrc', 'file', 'tools that run programs'),
  home('.terraform.d', 'dir', 'tools that run programs'),
  home('.curlrc', 'file', 'tools that run programs'),
  home('.wgetrc', 'file', 'tools that run programs'),
  home('.tmux.conf', 'file', 'tools that run programs'),
  home('.config/tmux', 'dir', 'tools that run programs'),
  home('.screenrc', 'file', 'tools that run programs'),
  home('.ripgreprc', 'file', 'tools that run programs'),
  home('.local/share/direnv', 'dir', 'tools that run programs'),
  home('.config/direnv', 'dir', 'tools that run programs'),
  home('.gnupg', 'dir', 'tools that run programs'),
  home('.config/gh', 'dir', 'tools that run programs'),
  home('.config/gcloud', 'dir', 'tools that run programs'),
  home('.azure', 'dir', 'tools that run programs'),
  home('.netrc', 'file', 'tools that run programs'),
  home('.git-credentials', 'file', 'git'),
  home('.pypirc', 'file', 'language start-up'),
  // The person's toolchains and caches: builds get caches of their own (sandboxPolicy's cacheEnvironment).
  home('.cargo', 'dir', 'toolchains and caches'),
  home('.rustup', 'dir', 'toolchains and caches'),
  home('.nvm', 'dir', 'toolchains and caches'),
  home('.pyenv', 'dir', 'toolchains and caches'),
  home('.rbenv', 'dir', 'toolchains and caches'),
  home('.asdf', 'dir', 'toolchains and caches'),
  home('.volta', 'dir', 'toolchains and caches'),
  home('.bun', 'dir', 'toolchains and caches'),
  home('.deno', 'dir', 'toolchains and caches'),
  home('.sdkman', 'dir', 'toolchains and caches'),
  home('.local/share/mise', 'dir', 'toolchains and caches'),
  home('.config/mise', 'dir', 'toolchains and caches'),
  home('.local/share/pnpm', 'dir', 'toolchains and caches'),
  home('.pnpm-store', 'dir', 'toolchains and caches'),
  home('.yarn', 'dir', 'toolchains and caches'),
  home('.npm', 'dir', 'toolchains and caches'),
  home('.cache', 'dir', 'toolchains and caches'),
  home('.gem', 'dir', 'toolchains and caches'),
  home('go', 'dir', 'toolchains and caches'),
  home('.m2', 'dir', 'toolchains and caches'),
  home('.gradle', 'dir', 'toolchains and caches'),
  home('.sbt', 'dir', 'toolchains and caches'),
  home('.ivy2', 'dir', 'toolchains and caches'),
  home('.dotnet', 'dir', 'toolchains and caches'),
  home('.composer', 'dir', 'toolchains and caches'),
  home('.config/composer', 'dir', 'toolchains and caches'),
  // Editors and IDEs: their configs and plugins run code.
  home('.vimrc', 'file', 'editors', {
    placeholder: stamp('"') + 'unlet! skip_defaults_vim\nsilent! source $VIMRUNTIME/defaults.vim\n',
  }),
  home('.vim', 'dir', 'editors'),
  home('.exrc', 'file', 'editors'),
  home('.config/nvim', 'dir', 'editors'),
  home('.local/share/nvim', 'dir', 'editors'),
  home('.emacs', 'file', 'editors'),
  home('.emacs.d', 'dir', 'editors'),
  home('.config/emacs', 'dir', 'editors'),
  home('.nanorc', 'file', 'editors'),
  home('.config/nano', 'dir', 'editors'),
  home('.vscode', 'dir', 'editors'),
  home('.vscode-server', 'dir', 'editors'),
  home('.config/Code', 'dir', 'editors'),
  home('.config/Cursor', 'dir', 'editors'),
  home('.config/JetBrains', 'dir', 'editors'),
  home('.local/share/JetBrains', 'dir', 'editors'),
  home('.config/zed', 'dir', 'editors'),
  home('.config/helix', 'dir', 'editors'),
  home('.config/sublime-text', 'dir', 'editors'),
  // Coding agents: their settings hold hooks, MCP servers and permissions.
  home('.claude.json', 'file', 'agents', { placeholder: '{}\n' }),
  home('.claude', 'dir', 'agents'),
  home('.codex', 'dir', 'agents'),
  home('.cursor', 'dir', 'agents'),
  home('.gemini', 'dir', 'agents'),
  home('.continue', 'dir', 'agents'),
  home('.aider.conf.yml', 'file', 'agents'),
  home('.config/goose', 'dir', 'agents'),
  home('.config/opencode', 'dir', 'agents'),
  home('.mcp.json', 'file', 'agents', { placeholder: '{}\n' }),
  // In every repository under a writable root, as Claude Code's sandbox does.
  repo('.git/config', 'file', 'git', false),
  repo('.git/hooks', 'dir', 'git', true),
  repo('.gitmodules', 'file', 'git', false),
  repo('.vscode', 'dir', 'editors', false),
  repo('.idea', 'dir', 'editors', false),
  repo('.claude', 'dir', 'agents', false),
  repo('.cursor', 'dir', 'agents', false),
  repo('.mcp.json', 'file', 'agents', false),
];
