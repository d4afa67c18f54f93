// A table whose entries are built the first time each is read: the API's schemas cost a process only the methods it
// uses.

/**
 * The object `{ key: build[key]() }`, each value built on its first read and kept. Keys are there from the start
 * (Object.keys, `in` and hasOwnProperty see them all), so a table reads as the plain object it stands for; only the
 * work moves. Why: building zod schemas is what a short-lived client spends most of its start on (heap and garbage
 * collection), and `switchboard call` needs one method's schemas of forty.
 */
export function lazyTable<T extends Record<string, unknown>>(
  build: { readonly [K in keyof T]: () => T[K] },
): { readonly [K in keyof T]: T[K] } {
  const table = {} as T;
  for (const key of Object.keys(build) as (keyof T & string)[]) {
    Object.defineProperty(table, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = build[key]();
        Object.defineProperty(table, key, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return table;
}
