// Stands in for the MCP SDK's Ajv validator in the built bundles (scripts/build.mjs puts it there). The SDK's Server
// loads Ajv at start, though it validates JSON Schema only for elicitation, which Switchboard never asks for: Ajv and
// its formats were half of `switchboard mcp`'s bundle, held loaded for nothing by the bridge and the Core alike.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error('Switchboard validates no JSON Schema in its MCP server (it elicits nothing)');
  }
}
