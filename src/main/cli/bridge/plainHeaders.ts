// `Headers` in `switchboard mcp`'s bundle (scripts/build.mjs injects it for the global): the MCP SDK's Streamable HTTP
// client transport builds one per request, and Node's own loads undici with it, which grows the bridge by about 12 MB
// for the whole of its life (coreFetch.ts sends the requests over node:http instead). Names are kept lower-case, as
// HTTP compares them.

export class Headers {
  private readonly map = new Map<string, string>();

  constructor(init?: Record<string, string> | Iterable<readonly [string, string]>) {
    if (!init) return;
    const pairs = Symbol.iterator in init ? init : Object.entries(init);
    for (const [name, value] of pairs) this.set(name, value);
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), String(value));
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }

  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}
