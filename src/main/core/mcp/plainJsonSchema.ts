// A tool's JSON Schema as every validator and model provider takes it: zod writes a few constructs that are legal JSON
// Schema but not portable (the MCP Inspector's --strict names them), rewritten here to their plain forms with the same
// meaning.

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `schema` with, at every level: `type: [a, b]` as `anyOf: [{type: a}, {type: b}]` (a client that maps schemas onto a
 * single-`type` dialect, such as Gemini's function declarations, rejects a list); an empty schema as the value of
 * `additionalProperties` as `true` (it accepts anything, which `true` says plainly); `propertyNames: {type: 'string'}`
 * left out (every JSON key is a string, and older validators do not know the keyword).
 */
export function plainJsonSchema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'propertyNames' && isSchema(value) && value.type === 'string' && Object.keys(value).length === 1)
      continue;
    if (keyword === 'additionalProperties' && isSchema(value) && Object.keys(value).length === 0) {
      out[keyword] = true;
      continue;
    }
    out[keyword] = plainValue(keyword, value);
  }
  if (Array.isArray(out.type)) {
    const branches = out.type.map((type) => ({ type }));
    delete out.type;
    // A schema with a type list and an anyOf of its own needs both: the list becomes one more condition.
    if (out.anyOf === undefined) out.anyOf = branches;
    else out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: branches }];
  }
  return out;
}

/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data (a value the instance may be), never a schema. */
const DATA = new Set(['const', 'enum', 'default', 'examples']);

/** A keyword's value with the subschemas in it (alone, in a list, or by name) made plain; data as it is. */
function plainValue(keyword: string, value: unknown): unknown {
  if (DATA.has(keyword)) return value;
  if (SCHEMA_MAPS.has(keyword) && isSchema(value))
    return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, isSchema(v) ? plainJsonSchema(v) : v]));
  if (Array.isArray(value)) return value.map((v) => (isSchema(v) ? plainJsonSchema(v) : v));
  return isSchema(value) ? plainJsonSchema(value) : value;
}
