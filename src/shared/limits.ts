// The largest requests the Core takes, declared once for every transport (WebSocket, MCP over HTTP, execute_code's
// tool calls) and every tool schema. What a request costs the Core is a few times its size, so these bound its memory.

/**
 * The longest command `terminal` takes. No shell is handed a longer command line: exec takes at most ARG_MAX (2 MiB on
 * Linux, arguments and environment together, and 128 KiB for the one argument of `sh -c`); longer content belongs in a
 * file (write_file), which the command then reads.
 */
export const MAX_COMMAND_CHARS = 1024 * 1024;

/**
 * The longest content one write_file (or one side of a patch) takes. Files are larger than commands, so they have a
 * cap of their own; a larger file is written in parts and joined on the target (`cat part-* > file`).
 */
export const MAX_FILE_CONTENT_CHARS = 8 * 1024 * 1024;

/**
 * The largest request, as bytes on the wire (a WebSocket message, an MCP HTTP body, a tool call from a script): the
 * file content cap with room for JSON's escapes and the other arguments. A larger one is refused before it is parsed.
 */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** A size for a person: `9.5 MiB`. */
export const mib = (size: number): string => `${(size / 1048576).toFixed(1)} MiB`;
