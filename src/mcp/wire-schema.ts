import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';

type JsonSchemaOptions = { target: string };

/**
 * The zod schema as the SDK should serve it: validation stays zod's, the JSON
 * Schema is converted once per schema (not once per HTTP request, which is
 * when the SDK asks for it) and loses the "$schema" keyword — every tool
 * listing would otherwise repeat the same 55-character URL in every schema,
 * paid for in the model's context on every request. For the same reason the
 * ±2^53 bounds zod gives every .int() are dropped: they say nothing a model
 * can use.
 */
export function wireSchema(schema: z.ZodObject): StandardSchemaWithJSON {
  const standard = schema['~standard'] as unknown as StandardSchemaWithJSON['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const convert = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    const key = `${io}\0${options.target}`;
    let json = converted.get(key);
    if (!json) {
      const { $schema: _dropped, ...rest } = standard.jsonSchema[io](options as never);
      json = withoutSafeIntegerBounds(rest) as Record<string, unknown>;
      converted.set(key, json);
    }
    return json;
  };
  return {
    '~standard': {
      version: standard.version,
      vendor: standard.vendor,
      validate: standard.validate,
      jsonSchema: { input: convert('input'), output: convert('output') },
    },
  };
}

function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)) continue;
    out[key] = withoutSafeIntegerBounds(value);
  }
  return out;
}
