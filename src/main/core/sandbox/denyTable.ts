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
  /**
   * Made only where one of these programs is installed (on the Core's PATH): a planted file of a tool the person does
   * not have runs nowhere, and a home should not fill with stand-ins for every shell and editor there is.
   */
  tools?: readonly string[];
}

const home = (
  path: string,
  kind: DenyRow['kind'],
  family: DenyFamily,
  extra: Partial<Pick<DenyRow, 'create' | 'placeholder' | 'tools'>> = {},
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
      'if [ -f "$HOME/.bash_login" ]; then . "$HOME/.bash_login"; ' +
      'elif [ -f "$HOME/.profile" ]; then . "$HOME/.profile"; fi\n',
  }),
  home('.bash_login', 'file', 'shell start-up', {
    placeholder: stamp('#') + '[ -f "$HOME/.profile" ] && . "$HOME/.profile"\n',
  }),
  home('.bash_logout', 'file', 'shell start-up'),
  home('.bash_aliases', 'file', 'shell start-up'),
  home('.profile', 'file', 'shell start-up'),
  home('.shinit', 'file', 'shell start-up', { create: false }),
  home('.kshrc', 'file', 'shell start-up', { tools: ['ksh', 'ksh93', 'mksh'] }),
  home('.mkshrc', 'file', 'shell start-up', { tools: ['mksh'] }),
  home('.cshrc', 'file', 'shell start-up', { tools: ['csh', 'tcsh'] }),
  home('.tcshrc', 'file', 'shell start-up', { tools: ['tcsh'] }),
  home('.login', 'file', 'shell start-up', { tools: ['csh', 'tcsh'] }),
  home('.zshenv', 'file', 'shell start-up', { tools: ['zsh'] }),
  home('.zprofile', 'file', 'shell start-up', { tools: ['zsh'] }),
  home('.zshrc', 'file', 'shell start-up', { tools: ['zsh'] }),
  home('.zlogin', 'file', 'shell start-up', { tools: ['zsh'] }),
  home('.zlogout', 'file', 'shell start-up', { tools: ['zsh'] }),
  home('.oh-my-zsh', 'dir', 'shell start-up', { tools: ['zsh'] }),
  home('.config/fish', 'dir', 'shell start-up', { tools: ['fish'] }),
  home('.config/nushell', 'dir', 'shell start-up', { tools: ['nu'] }),
  home('.inputrc', 'file', 'shell start-up', { placeholder: stamp('#') + '$include /etc/inputrc\n' }),
  // What a graphical or systemd session starts.
  home('.pam_environment', 'file', 'session start-up'),
  home('.config/environment.d', 'dir', 'session start-up'),
  home('.config/autostart', 'dir', 'session start-up'),
  home('.config/systemd', 'dir', 'session start-up'),
  home('.local/share/systemd', 'dir', 'session start-up'),
  home('.config/plasma-workspace', 'dir', 'session start-up', { tools: ['startplasma-x11', 'startplasma-wayland'] }),
  home('.xprofile', 'file', 'session start-up', { tools: ['Xorg', 'Xwayland'] }),
  home('.xsessionrc', 'file', 'session start-up', { tools: ['Xorg', 'Xwayland'] }),
  home('.xsession', 'file', 'session start-up', { create: false }),
  home('.xinitrc', 'file', 'session start-up', { create: false }),
  home('.Xresources', 'file', 'session start-up', { tools: ['xrdb'] }),
  home('.local/share/applications', 'dir', 'session start-up'),
  home('.mailcap', 'file', 'session start-up', { create: false }),
  // Folders a person's PATH holds (the Core's own PATH adds more, see sandboxPolicy).
  home('bin', 'dir', 'programs on PATH'),
  home('.local/bin', 'dir', 'programs on PATH'),
  // git's user configuration (core.fsmonitor, core.hooksPath, aliases run programs).
  home('.gitconfig', 'file', 'git'),
  home('.config/git', 'dir', 'git'),
  // Code a language runs when it starts.
  home('.local/lib', 'dir', 'language start-up'),
  home('.config/pip', 'dir', 'language start-up', { tools: ['pip', 'pip3'] }),
  home('.pip', 'dir', 'language start-up', { tools: ['pip', 'pip3'] }),
  home('.pydistutils.cfg', 'file', 'language start-up'),
  home('.condarc', 'file', 'language start-up', { tools: ['conda', 'mamba', 'micromamba'] }),
  home('.config/uv', 'dir', 'language start-up', { tools: ['uv'] }),
  home('.node_modules', 'dir', 'language start-up'),
  home('.node_libraries', 'dir', 'language start-up'),
  home('.npmrc', 'file', 'language start-up'),
  home('.yarnrc', 'file', 'language start-up', { tools: ['yarn'] }),
  home('.yarnrc.yml', 'file', 'language start-up', { tools: ['yarn'] }),
  home('.irbrc', 'file', 'language start-up', { tools: ['irb', 'ruby'] }),
  home('.gemrc', 'file', 'language start-up', { tools: ['gem'] }),
  home('.perldb', 'file', 'language start-up', { create: false }),
  home('.Rprofile', 'file', 'language start-up', { tools: ['R', 'Rscript'] }),
  // Tools whose configuration names a program they run.
  home('.ssh', 'dir', 'tools that run programs'),
  home('.kube', 'dir', 'tools that run programs', { tools: ['kubectl', 'helm', 'k9s'] }),
  home('.aws', 'dir', 'tools that run programs', { tools: ['aws'] }),
  home('.docker', 'dir', 'tools that run programs', { tools: ['docker'] }),
  home('.config/containers', 'dir', 'tools that run programs', { tools: ['podman', 'buildah', 'skopeo'] }),
  home('.terraformrc', 'file', 'tools that run programs', { tools: ['terraform', 'tofu'] }),
  home('.terraform.d', 'dir', 'tools that run programs', { tools: ['terraform', 'tofu'] }),
  home('.curlrc', 'file', 'tools that run programs'),
  home('.wgetrc', 'file', 'tools that run programs'),
  home('.tmux.conf', 'file', 'tools that run programs', { tools: ['tmux'] }),
  home('.config/tmux', 'dir', 'tools that run programs', { tools: ['tmux'] }),
  home('.screenrc', 'file', 'tools that run programs', { tools: ['screen'] }),
  home('.ripgreprc', 'file', 'tools that run programs', { create: false }),
  home('.local/share/direnv', 'dir', 'tools that run programs', { tools: ['direnv'] }),
  home('.config/direnv', 'dir', 'tools that run programs', { tools: ['direnv'] }),
  home('.gnupg', 'dir', 'tools that run programs'),
  home('.config/gh', 'dir', 'tools that run programs', { tools: ['gh'] }),
  home('.config/gcloud', 'dir', 'tools that run programs', { tools: ['gcloud'] }),
  home('.azure', 'dir', 'tools that run programs', { tools: ['az'] }),
  home('.netrc', 'file', 'tools that run programs'),
  home('.git-credentials', 'file', 'git'),
  home('.pypirc', 'file', 'language start-up'),
  // The person's toolchains and caches: builds get caches of their own (sandboxPolicy's cacheEnvironment). A
  // toolchain's folder that does not exist runs nothing (its PATH entry and start-up lines are in protected files):
  // held only once it exists.
  home('.cargo', 'dir', 'toolchains and caches', { create: false }),
  home('.rustup', 'dir', 'toolchains and caches', { create: false }),
  home('.nvm', 'dir', 'toolchains and caches', { create: false }),
  home('.pyenv', 'dir', 'toolchains and caches', { create: false }),
  home('.rbenv', 'dir', 'toolchains and caches', { create: false }),
  home('.asdf', 'dir', 'toolchains and caches', { create: false }),
  home('.volta', 'dir', 'toolchains and caches', { create: false }),
  home('.bun', 'dir', 'toolchains and caches', { create: false }),
  home('.deno', 'dir', 'toolchains and caches', { create: false }),
  home('.sdkman', 'dir', 'toolchains and caches', { create: false }),
  home('.local/share/mise', 'dir', 'toolchains and caches', { create: false }),
  home('.config/mise', 'dir', 'toolchains and caches', { create: false }),
  home('.local/share/pnpm', 'dir', 'toolchains and caches', { create: false }),
  home('.pnpm-store', 'dir', 'toolchains and caches', { create: false }),
  home('.yarn', 'dir', 'toolchains and caches', { create: false }),
  home('.npm', 'dir', 'toolchains and caches', { tools: ['npm'] }),
  home('.cache', 'dir', 'toolchains and caches'),
  home('.gem', 'dir', 'toolchains and caches', { create: false }),
  home('go', 'dir', 'toolchains and caches', { create: false }),
  home('.m2', 'dir', 'toolchains and caches', { tools: ['mvn', 'java'] }),
  home('.gradle', 'dir', 'toolchains and caches', { tools: ['gradle', 'java'] }),
  home('.sbt', 'dir', 'toolchains and caches', { create: false }),
  home('.ivy2', 'dir', 'toolchains and caches', { create: false }),
  home('.dotnet', 'dir', 'toolchains and caches', { create: false }),
  home('.composer', 'dir', 'toolchains and caches', { create: false }),
  home('.config/composer', 'dir', 'toolchains and caches', { create: false }),
  // Editors and IDEs: their configs and plugins run code.
  home('.vimrc', 'file', 'editors', {
    placeholder: stamp('"') + 'unlet! skip_defaults_vim\nsilent! source $VIMRUNTIME/defaults.vim\n',
  }),
  home('.vim', 'dir', 'editors'),
  home('.exrc', 'file', 'editors'),
  home('.config/nvim', 'dir', 'editors', { tools: ['nvim'] }),
  home('.local/share/nvim', 'dir', 'editors', { tools: ['nvim'] }),
  home('.emacs', 'file', 'editors', { tools: ['emacs'] }),
  home('.emacs.d', 'dir', 'editors', { tools: ['emacs'] }),
  home('.config/emacs', 'dir', 'editors', { tools: ['emacs'] }),
  home('.nanorc', 'file', 'editors', { tools: ['nano'] }),
  home('.config/nano', 'dir', 'editors', { tools: ['nano'] }),
  home('.vscode', 'dir', 'editors', { tools: ['code', 'code-insiders', 'codium'] }),
  home('.vscode-server', 'dir', 'editors', { create: false }),
  home('.config/Code', 'dir', 'editors', { tools: ['code', 'code-insiders'] }),
  home('.config/Cursor', 'dir', 'editors', { tools: ['cursor'] }),
  home('.config/JetBrains', 'dir', 'editors', { create: false }),
  home('.local/share/JetBrains', 'dir', 'editors', { create: false }),
  home('.config/zed', 'dir', 'editors', { tools: ['zed', 'zeditor'] }),
  home('.config/helix', 'dir', 'editors', { tools: ['hx', 'helix'] }),
  home('.config/sublime-text', 'dir', 'editors', { tools: ['subl'] }),
  // Coding agents: their settings hold hooks, MCP servers and permissions.
  home('.claude.json', 'file', 'agents', { placeholder: '{}\n' }),
  home('.claude', 'dir', 'agents'),
  home('.codex', 'dir', 'agents'),
  home('.cursor', 'dir', 'agents'),
  home('.gemini', 'dir', 'agents'),
  home('.continue', 'dir', 'agents', { tools: ['code', 'cursor'] }),
  home('.aider.conf.yml', 'file', 'agents', { tools: ['aider'] }),
  home('.config/goose', 'dir', 'agents', { tools: ['goose'] }),
  home('.config/opencode', 'dir', 'agents', { tools: ['opencode'] }),
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
