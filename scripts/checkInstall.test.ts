// The command checkInstall.mjs gives a machine that could not build node-pty, by its system.
import { describe, expect, it } from 'vitest';
import { installCommand } from './checkInstall.mjs';

describe('installCommand', () => {
  it.each([
    ['linux', 'ID=debian\n', 'sudo apt-get install -y python3 make g++'],
    ['linux', 'ID=ubuntu\nID_LIKE=debian\n', 'sudo apt-get install -y python3 make g++'],
    ['linux', 'ID=linuxmint\nID_LIKE="ubuntu debian"\n', 'sudo apt-get install -y python3 make g++'],
    ['linux', 'ID=fedora\n', 'sudo dnf install -y python3 make gcc-c++'],
    ['linux', 'ID="rocky"\nID_LIKE="rhel centos fedora"\n', 'sudo dnf install -y python3 make gcc-c++'],
    ['linux', 'ID=arch\n', 'sudo pacman -S --needed python make gcc'],
    ['linux', 'ID=manjaro\nID_LIKE=arch\n', 'sudo pacman -S --needed python make gcc'],
    ['linux', 'ID=alpine\n', 'sudo apk add python3 make g++ linux-headers'],
    ['linux', 'ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n', 'sudo zypper install -y python3 make gcc-c++'],
    ['linux', 'ID=nixos\n', undefined],
    ['linux', '', undefined],
    ['darwin', '', 'xcode-select --install'],
  ])('%s with %j → %s', (platform, osRelease, command) => {
    expect(installCommand(platform, osRelease)).toBe(command);
  });
});
