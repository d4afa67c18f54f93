// Waiting for something that should end soon, without letting it hold up a stop or a kill for good.

/** Waits for `p`, but no longer than `ms`; the timer is cleared either way. */
export async function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
