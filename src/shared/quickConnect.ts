// Quick connect: what a person types to reach an SSH host at once (`user@host[:port]`, `ssh user@host -p 2222`,
// `ssh://user@host:port`), read into the fields of an SSH target. Pure; the palette and the Add-target form use it.

export interface QuickConnect {
  host: string;
  user?: string;
  port?: number;
  /** `-i FILE`. */
  key?: string;
}

export type QuickConnectParse = { ok: true; value: QuickConnect } | { ok: false; problem: string };

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;
const USER = /^[A-Za-z0-9._][A-Za-z0-9._-]*$/;

/** Text that is meant as a connection, right or wrong: it names a user (`@`) or starts with `ssh`. */
export function looksLikeQuickConnect(text: string): boolean {
  const t = text.trim();
  return /^ssh(\s|:\/\/)/.test(t) || /^[^\s@]+@\S*$/.test(t);
}

function port(text: string): number | string {
  if (!/^\d{1,5}$/.test(text)) return `the port must be a number, like 2222 (not "${text}")`;
  const n = Number(text);
  return n >= 1 && n <= 65_535 ? n : `the port must be between 1 and 65535 (not ${n})`;
}

/** `[user@]host[:port]`, an IPv6 host in brackets. */
function destination(text: string): QuickConnectParse {
  const at = text.lastIndexOf('@');
  const user = at >= 0 ? text.slice(0, at) : undefined;
  let rest = at >= 0 ? text.slice(at + 1) : text;
  if (user !== undefined && !USER.test(user)) return { ok: false, problem: `"${user}" is not a user name` };
  let portText: string | undefined;
  let host: string;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(rest);
  if (bracketed) {
    host = bracketed[1] ?? '';
    portText = bracketed[2];
    if (!IPV6.test(host) || !host.includes(':')) return { ok: false, problem: `"[${host}]" is not an IPv6 address` };
  } else {
    const colon = rest.indexOf(':');
    if (colon >= 0) {
      portText = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
    }
    host = rest;
    if (!host) return { ok: false, problem: 'type a host after the @, like me@example.com:2222' };
    if (!HOST.test(host) || host.length > 253) return { ok: false, problem: `"${host}" is not a host name` };
  }
  const value: QuickConnect = { host, ...(user ? { user } : {}) };
  if (portText !== undefined) {
    const p = port(portText);
    if (typeof p === 'string') return { ok: false, problem: p };
    value.port = p;
  }
  return { ok: true, value };
}

/** Reads a quick-connect line; `problem` says in one line what is wrong with one that looks meant but is not right. */
export function parseQuickConnect(text: string): QuickConnectParse {
  const t = text.trim();
  const url = /^ssh:\/\/(.*?)\/?$/.exec(t);
  if (url) return destination(url[1] ?? '');
  if (!/^ssh\s/.test(t)) {
    if (!t.includes('@')) return { ok: false, problem: 'type user@host or user@host:port' };
    if (/\s/.test(t)) return { ok: false, problem: 'type user@host:port without spaces, or start with ssh' };
    return destination(t);
  }
  // `ssh [-p PORT] [-l USER] [-i FILE] [user@]host [-p PORT]`: the options a person types to reach a host.
  const words = t.split(/\s+/).slice(1);
  let dest: string | undefined;
  let user: string | undefined;
  let portValue: number | undefined;
  let key: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w === '-p' || w === '-l' || w === '-i') {
      const v = words[++i];
      if (v === undefined) return { ok: false, problem: `${w} needs a value` };
      if (w === '-l') user = v;
      else if (w === '-i') key = v;
      else {
        const p = port(v);
        if (typeof p === 'string') return { ok: false, problem: p };
        portValue = p;
      }
    } else if (w.startsWith('-')) {
      return {
        ok: false,
        problem: `ssh option ${w} is not read here; use -p, -l or -i, or add the target in the form`,
      };
    } else if (dest === undefined) {
      dest = w;
    } else {
      return { ok: false, problem: `a command after the host ("${w}") is not run by quick connect` };
    }
  }
  if (dest === undefined) return { ok: false, problem: 'type a host after ssh, like ssh me@example.com -p 2222' };
  const parsed = destination(dest);
  if (!parsed.ok) return parsed;
  if (user !== undefined) {
    if (!USER.test(user)) return { ok: false, problem: `"${user}" is not a user name` };
    parsed.value.user ??= user;
  }
  if (portValue !== undefined) parsed.value.port ??= portValue;
  if (key !== undefined) parsed.value.key = key;
  return parsed;
}

/** `user@host:port` as the palette offers it (port 22 when none was typed). */
export function quickConnectLabel(q: QuickConnect): string {
  const host = q.host.includes(':') ? `[${q.host}]` : q.host;
  return `${q.user ? `${q.user}@` : ''}${host}:${q.port ?? 22}`;
}

/**
 * A target name for the connection: its host (with `-PORT` when not 22), made a valid target name, and `-2`, `-3` …
 * when taken.
 */
export function quickConnectName(q: QuickConnect, taken: ReadonlySet<string>): string {
  // An IPv6 address has no letters to start a name with: `::1` becomes `ipv6-1`.
  const host = q.host.includes(':') ? `ipv6-${q.host}` : q.host;
  const base =
    `${host}${q.port && q.port !== 22 ? `-${q.port}` : ''}`
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56) || 'host';
  const lower = new Set([...taken].map((n) => n.toLowerCase()));
  if (!lower.has(base.toLowerCase())) return base;
  for (let i = 2; ; i++) if (!lower.has(`${base}-${i}`.toLowerCase())) return `${base}-${i}`;
}
