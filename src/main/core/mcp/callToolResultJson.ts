// A tool result's MCP form as JSON text, written directly: the same text JSON.stringify(toCallToolResult(result)) gives,
// but each of the result's fields encoded once. The result is in it twice (as the pretty JSON of content[0].text, and as
// structuredContent), and a field that holds a command's output or a file (megabytes, for read_output) was encoded
// into both, then the pretty text encoded once more as a string: now the field is encoded once and spliced into both.
import type { ToolResult } from '../../../shared/tools.js';

/** One top-level field of a result, encoded: `[key, compact JSON, the pretty JSON of its value at depth 1]`. */
function encodedFields(result: ToolResult): [string, string, string][] {
  const fields: [string, string, string][] = [];
  for (const [name, value] of Object.entries(result)) {
    // A string is the same compact or pretty (the big outputs are strings): encoded once, used in both.
    const compact = JSON.stringify(value);
    // Left out, as JSON.stringify leaves out a key whose value is undefined (or a function).
    if (compact === undefined) continue;
    const key = JSON.stringify(name);
    // JSON text has no raw newline inside a string, so every newline is a line break, to be indented one level more.
    const pretty =
      typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2).replaceAll('\n', '\n  ') : compact;
    fields.push([key, compact, pretty]);
  }
  return fields;
}

/** JSON.stringify(toCallToolResult(result)), with each field of `result` encoded once. */
export function callToolResultJson(result: ToolResult): string {
  const fields = encodedFields(result);
  const structured = `{${fields.map(([key, compact]) => `${key}:${compact}`).join(',')}}`;
  const pretty = fields.length === 0 ? '{}' : `{\n${fields.map(([key, , p]) => `  ${key}: ${p}`).join(',\n')}\n}`;
  return `{"content":[{"type":"text","text":${JSON.stringify(pretty)}}],"structuredContent":${structured}}`;
}
