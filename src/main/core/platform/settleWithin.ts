// Waiting for something that should end soon, without letting it hold up a stop or a kill for good.

/** `p`'s value when it settles within `ms`, else `late`; a rejection of `p` is passed on. The timer is cleared. */
export async function valueWithin<T>(p: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `p`, but no longer than `ms`: true when it settled in time. The timer is cleared either way. */
export function settleWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return valueWithin(
    p.then(() => true),
    ms,
    false,
  );
}
