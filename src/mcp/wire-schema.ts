import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';

type JsonSchemaOptions = { target: string };

/**
 * The zod schema as the SDK should serve it: validation stays zod's, the JSON
 * Schema is converted once per schema (not once per HTTP request, which is
 * when the SDK asks for it) and loses the "$schema" keyword — every tool
 * listing would otherwise repeat the same 55-character URL in every schema,
 * paid for in the model's context on every request.
 */
export function wireSchema(schema: z.ZodObject): StandardSchemaWithJSON {
  const standard = schema['~standard'] as unknown as StandardSchemaWithJSON['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const convert = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    const key = `${io}\0${options.target}`;
    let json = converted.get(key);
    if (!json) {
      const { $schema: _dropped, ...rest } = standard.jsonSchema[io](options as never) as Record<string, unknown>;
      json = rest;
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
  } as StandardSchemaWithJSON;
}
