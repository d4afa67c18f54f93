// Stands in for the MCP SDK's client/auth.js in `switchboard mcp`'s bundle (scripts/build.mjs puts it there). The
// Streamable HTTP client transport reaches OAuth only through an auth provider, and the bridge gives it none: the
// Core's token goes in a bearer header (coreFetch.ts). The SDK's OAuth code and its zod schemas are not loaded.

export class UnauthorizedError extends Error {
  constructor(message = 'Unauthorized') {
    super(message);
  }
}

export function auth(): Promise<never> {
  return Promise.reject(new UnauthorizedError('the Switchboard bridge does no OAuth: it sends the Core its token'));
}

export function extractWWWAuthenticateParams(): Record<string, never> {
  return {};
}
