// Every Engine request has a deadline: an engine that stops answering leaves a socket open rather than closing it.

/** Inspect/list/ping calls that take longer than this mean the engine is not answering. */
export const controlDeadlineMs = 15_000;
/** Creating or starting an exec is quick on a live engine; this long without an answer means a stuck one. */
export const execDeadlineMs = 10_000;
/** After a timeout or kill, the engine calls that stop and reap a command get this long each. */
export const killDeadlineMs = 3_000;
/** After a timeout or kill, the command's stream is closed by force this long later if it is still open. */
export const forceCloseMs = 2_000;
/** A command that died of a signal: how long the engine has to show whether its container went with it. */
export const goneSettleMs = 2_000;
/** Each engine call of probe() gets this long: a probe should be quick, answer or not. */
export const probeDeadlineMs = 3_000;

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Rejects with a TimeoutError (read as "engine unreachable") when the engine does not answer in time, and
 * aborts the request then, so a late answer (a hijacked stream, say) cannot leak a connection.
 */
export function deadline<T>(
  call: (abortSignal: AbortSignal) => Promise<T>,
  what: string,
  ms = controlDeadlineMs,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`no answer to ${what} within ${ms} ms`);
      err.name = 'TimeoutError';
      reject(err);
      controller.abort(err);
    }, ms);
  });
  const answer = call(controller.signal);
  answer.catch(() => undefined); // once the deadline has won, the abort's rejection has no one to go to
  return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
}
