import { describe, expect, it } from '@jest/globals';
import { describeUnknown, unknownArguments } from './unknown-arguments.js';

// The shape wire-schema.ts lists: every object closed, a union as anyOf.
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    site_url: { type: 'string' },
    compare: {
      anyOf: [
        { type: 'string', enum: ['previous_period'] },
        { type: 'object', additionalProperties: false, properties: { start_date: { type: 'string' }, end_date: { type: 'string' } } },
      ],
    },
    filters: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, properties: { dimension: { type: 'string' }, operator: { type: 'string' } } },
    },
  },
};

describe('unknownArguments', () => {
  it('finds nothing in a call that keeps to the schema', () => {
    expect(unknownArguments(SCHEMA, {})).toEqual([]);
    expect(
      unknownArguments(SCHEMA, {
        site_url: 'x',
        compare: { start_date: 'a', end_date: 'b' },
        filters: [{ dimension: 'query', operator: 'contains' }],
      }),
    ).toEqual([]);
    expect(unknownArguments(SCHEMA, { compare: 'previous_period' })).toEqual([]);
  });

  it('names an unknown argument at the top, inside a union and inside a list, with what is allowed there', () => {
    expect(unknownArguments(SCHEMA, { site_url: 'x', google_acount: 'a@b' })).toEqual([
      { path: 'google_acount', allowed: ['site_url', 'compare', 'filters'] },
    ]);
    expect(unknownArguments(SCHEMA, { compare: { start_date: 'a', end: 'b' } })).toEqual([
      { path: 'compare.end', allowed: ['start_date', 'end_date'] },
    ]);
    expect(unknownArguments(SCHEMA, { filters: [{ dimension: 'query' }, { dimension: 'page', operatr: 'x' }] })).toEqual([
      { path: 'filters[1].operatr', allowed: ['dimension', 'operator'] },
    ]);
  });

  it('leaves to the zod schema what is not about unknown keys (types, required)', () => {
    expect(unknownArguments(SCHEMA, { site_url: 42, filters: 'all' })).toEqual([]);
  });

  it('takes an open object as open, and no own property of Object.prototype as known', () => {
    expect(unknownArguments({ type: 'object', properties: {} }, { anything: 1 })).toEqual([]);
    expect(unknownArguments(SCHEMA, { toString: 'x' })).toEqual([{ path: 'toString', allowed: ['site_url', 'compare', 'filters'] }]);
  });

  it('says it in one sentence', () => {
    expect(describeUnknown(unknownArguments(SCHEMA, { bogus: 1 }))).toBe(
      'bogus: unknown argument (allowed here: site_url, compare, filters)',
    );
    expect(describeUnknown([{ path: 'x', allowed: [] }])).toBe('x: unknown argument (no arguments are allowed here)');
  });
});
