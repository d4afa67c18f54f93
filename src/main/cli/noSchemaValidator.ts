// Stands in for the MCP SDK's Ajv validator in the CLI's bundles (scripts/build.mjs puts it there). The SDK's Server
// loads Ajv at start, though it validates JSON Schema only for elicitation, which Switchboard never asks for: Ajv and
// its formats are half of `switchboard mcp`'s bundle, and the bridge would hold them loaded for nothing.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error('switchboard mcp validates no JSON Schema (it elicits nothing)');
  }
}
