# shellcheck shell=sh disable=SC2016
# The EXIT trap of a shell that is a sandbox's main process (local and SSH sandboxes; sandboxShellExit.ts says why):
# sent before the warm shell's prelude, or before a sandboxed command. The trap's text expands when it runs (SC2016).
trap 'trap "" HUP TERM; while set -- /proc/[0-9]*; [ $# -gt 2 ]; do sleep 1; done' EXIT
