import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';

type JsonSchemaOptions = { target: string };
type Json = Record<string, unknown>;

/**
 * The zod schema as the SDK should serve it: validation stays zod's, the JSON
 * Schema is converted once per schema (not once per HTTP request, which is
 * when the SDK asks for it) and shaped for what clients do with it:
 *
 * - Every tools/list answer is forwarded to the model on every request
 *   (PRODUCT.md §10), so "$schema" (the same 55-character URL in every
 *   schema) and the ±2^53 bounds zod gives every .int() are dropped.
 * - Input schemas are what strict function-calling converters accept
 *   (PRODUCT.md §5c): every object closed (additionalProperties false — the
 *   OpenAI Agents SDK falls back to non-strict for an open one) and no `const`
 *   (outside Gemini's declaration subset; `enum` of one says the same).
 * - Output schemas are an outline (see outline below): the server still checks
 *   every result against the full zod schema before sending it.
 */
export function wireSchema(schema: z.ZodObject): StandardSchemaWithJSON {
  const standard = schema['~standard'] as unknown as StandardSchemaWithJSON['~standard'];
  const converted = new Map<string, Json>();
  const convert = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    const key = `${io}\0${options.target}`;
    let json = converted.get(key);
    if (!json) {
      const { $schema: _dropped, ...rest } = standard.jsonSchema[io](options as never);
      json = io === 'input' ? (strictInput(rest) as Json) : outline(rest, 0, false);
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

const isSafeIntegerBound = (key: string, value: unknown) =>
  (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && value === Number.MIN_SAFE_INTEGER);

function strictInput(node: unknown): unknown {
  if (Array.isArray(node)) {
    return node.map(strictInput);
  }
  if (!node || typeof node !== 'object') {
    return node;
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (isSafeIntegerBound(key, value)) {
      continue;
    }
    if (key === 'const') {
      out.enum = [value];
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, strictInput(sub)]));
    } else {
      out[key] = strictInput(value);
    }
  }
  if (out.type === 'object' && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

/**
 * An output schema as advertised: the result's own fields with their types
 * and choices, and the fields of the items of its lists; anything deeper is
 * named by its type only. Descriptions and `required` are left out: the text
 * answer and the field names say what the values mean, and which are there. Always looser than the zod schema
 * the server checks, so no result it sends can fail a client's validation.
 * The whole output schemas were two thirds of tools/list (28 of 42 KB).
 *
 * Three more things repeat what is already there: a choice is its `enum`
 * alone (the values are strings; `"type": "string"` beside them repeats it),
 * a list item whose fields are listed needs no `"type": "object"`, and a
 * field every result carries as `true` (`untrusted`) is left to the result
 * itself. That is how the three annotation tools fit PRODUCT.md §10.
 */
function outline(node: Json, depth: number, itemOfList: boolean): Json {
  if (Array.isArray(node.anyOf)) {
    return { anyOf: (node.anyOf as Json[]).map((branch) => outline(branch, depth, itemOfList)) };
  }
  const out: Json = {};
  // A const of a string or number is an enum of one; Gemini's subset has enum only for those, so a true literal is just a boolean.
  const choices = node.enum ?? (node.const !== undefined && typeof node.const !== 'boolean' ? [node.const] : undefined);
  const listsFields = !!node.properties && (depth === 0 || (depth === 1 && itemOfList));
  // An item whose fields are listed is an object: its "type" would repeat what "properties" says (the root keeps it: MCP requires it).
  if (node.type !== undefined && !(choices && node.type === 'string') && !(itemOfList && listsFields)) {
    out.type = node.type;
  }
  if (choices) {
    out.enum = choices;
  }
  if (listsFields) {
    const required = new Set((node.required as string[] | undefined) ?? []);
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Json>)
        .filter(([name, sub]) => !(depth === 0 && required.has(name) && sub.const === true))
        .map(([name, sub]) => [name, outline(sub, depth + 1, false)]),
    );
  }
  if (node.items && typeof node.items === 'object') {
    out.items = outline(node.items as Json, depth, true);
  }
  return out;
}
