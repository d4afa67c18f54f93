// Whether a process, or any process of a process group, still exists (signal 0): no imports, so the CLI's smallest
// entries can use it.

/**
 * Whether process `pid` exists (EPERM: it does, but belongs to someone else); a negative `pid` asks for any process
 * of the group `-pid`. Asked after every tool call, where the answer is mostly ESRCH: the error is built without a
 * stack trace, which would cost more than the kill.
 */
export function pidAlive(pid: number): boolean {
  const stackDepth = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  } finally {
    Error.stackTraceLimit = stackDepth;
  }
}

/** Whether any process is still in the group `pgid` (the leader may be gone while its children live on). */
export function groupAlive(pgid: number): boolean {
  return pidAlive(-pgid);
}
