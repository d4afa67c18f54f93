// The tools' JSON Schemas in plain forms: each rewrite by table, and no tool schema left with a construct the MCP
// Inspector's --strict warns about (a type list, an empty schema for additionalProperties, propertyNames).
import { describe, expect, it } from 'vitest';
import { mcpTools } from './mcpServer.js';
import { plainJsonSchema } from './plainJsonSchema.js';

describe('plainJsonSchema', () => {
  it.each([
    ['a type list', { type: ['string', 'null'] }, { anyOf: [{ type: 'string' }, { type: 'null' }] }],
    [
      'a type list beside an anyOf',
      { type: ['string', 'null'], anyOf: [{ minLength: 1 }, { type: 'null' }] },
      {
        anyOf: [{ minLength: 1 }, { type: 'null' }],
        allOf: [{ anyOf: [{ type: 'string' }, { type: 'null' }] }],
      },
    ],
    [
      'a free-form record',
      { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
      { type: 'object', additionalProperties: true },
    ],
    [
      'deep inside properties and items',
      { type: 'object', properties: { a: { type: 'array', items: { type: ['integer', 'null'] } } } },
      {
        type: 'object',
        properties: { a: { type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } },
      },
    ],
    [
      'properties named after keywords are properties',
      { properties: { propertyNames: { type: 'string' }, additionalProperties: {}, type: { type: 'string' } } },
      { properties: { propertyNames: { type: 'string' }, additionalProperties: {}, type: { type: 'string' } } },
    ],
    ['data stays data', { const: { type: ['a', 'b'] }, enum: [{ additionalProperties: {} }] }, null],
    ['a propertyNames that constrains stays', { propertyNames: { pattern: '^x' } }, null],
    ['additionalProperties that constrains stays', { additionalProperties: { type: 'string' } }, null],
  ])('%s', (_, schema, expected) => {
    expect(plainJsonSchema(schema)).toEqual(expected ?? schema);
  });
});

describe('the tool list', () => {
  it('has no type list, no empty additionalProperties schema and no propertyNames, in any schema', () => {
    const found: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}[${i}]`));
      if (typeof value !== 'object' || value === null) return;
      const schema = value as Record<string, unknown>;
      if (Array.isArray(schema.type)) found.push(`${path}.type`);
      if (schema.propertyNames !== undefined) found.push(`${path}.propertyNames`);
      const extra = schema.additionalProperties;
      if (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0)
        found.push(`${path}.additionalProperties`);
      for (const [k, v] of Object.entries(schema)) if (k !== 'const' && k !== 'enum') walk(v, `${path}.${k}`);
    };
    for (const tool of mcpTools()) {
      walk(tool.inputSchema, `${tool.name}.inputSchema`);
      walk(tool.outputSchema, `${tool.name}.outputSchema`);
    }
    expect(found).toEqual([]);
  });
});
