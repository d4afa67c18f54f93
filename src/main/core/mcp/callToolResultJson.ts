// A tool result's MCP form as JSON text, written directly: the text JSON.stringify(toCallToolResult(result)) gives, in
// pieces. The result is in it twice, as the pretty JSON of content[0].text (a string, so encoded a second time) and as
// structuredContent, and a field can be megabytes (a command's output, a read_output slice). Built as one string, each
// of those was copied whole several times over (the pretty text, the answer, then its bytes); as pieces, a field is
// encoded once for structuredContent and once more as part of the text, and the pieces go to the socket's buffer as
// they are (jsonBytes).
import type { ToolResult } from '../../../shared/tools.js';

/** Below this many chars of JSON a result is one piece: joining small pieces costs less than writing each. */
const JOINED_BELOW = 64 * 1024;

/** The text of `s` as it stands inside a JSON string (its encoding without the quotes). */
const inString = (s: string): string => JSON.stringify(s).slice(1, -1);

/** JSON.stringify(toCallToolResult(result)), as pieces whose concatenation is that text. */
export function callToolResultJson(result: ToolResult): string[] {
  // The pretty text's pieces, encoded as the inside of content[0].text; structuredContent's pieces beside them.
  const text: string[] = [];
  const structured: string[] = [];
  let size = 0;
  for (const [name, value] of Object.entries(result)) {
    const compact = JSON.stringify(value);
    // Left out, as JSON.stringify leaves out a key whose value is undefined (or a function).
    if (compact === undefined) continue;
    const key = JSON.stringify(name);
    // A string is the same compact or pretty (the big fields are strings). JSON text has no raw newline inside a
    // string, so every newline of a nested value's pretty JSON is a line break, indented one level more here.
    const pretty =
      typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2).replaceAll('\n', '\n  ') : compact;
    text.push(inString(`${structured.length === 0 ? '{\n' : ',\n'}  ${key}: `), inString(pretty));
    structured.push(`${structured.length === 0 ? '{' : ','}${key}:`, compact);
    size += compact.length;
  }
  const pieces = [
    '{"content":[{"type":"text","text":"',
    ...(structured.length === 0 ? ['{}'] : [...text, '\\n}']),
    '"}],"structuredContent":',
    ...(structured.length === 0 ? ['{}'] : [...structured, '}']),
    '}',
  ];
  return size < JOINED_BELOW ? [pieces.join('')] : pieces;
}

/** The UTF-8 bytes of `pieces` joined, written into one buffer without building the joined string first. */
export function jsonBytes(pieces: readonly string[]): Buffer {
  if (pieces.length === 1) return Buffer.from(pieces[0]!);
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}
