import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { legacyStateKey, STATE_KEYS, type StateKeyFamily, stateKey, stateName } from './keys.js';

const ROOT = join(import.meta.dirname, '..', '..');
const families = Object.entries(STATE_KEYS) as [string, StateKeyFamily][];

describe('the state key table', () => {
  it('has no prefix that begins another, so two families never write the same key', () => {
    const clashes = families.flatMap(([a, fa]) =>
      families
        .filter(([b, fb]) => a !== b && fb.prefix.startsWith(fa.prefix))
        .map(([b, fb]) => `${a} (${fa.prefix}) begins ${b} (${fb.prefix})`),
    );
    expect(clashes).toEqual([]);
  });

  it('versions every family', () => {
    expect(families.filter(([, f]) => !/^[a-z][a-z-]*:v\d+(:|$)/.test(f.prefix)).map(([name]) => name)).toEqual([]);
  });

  it('names where each family stood before the table, unless it was versioned already', () => {
    expect(families.filter(([, f]) => (f.upgrade === 'unchanged') === (f.legacy !== undefined)).map(([name]) => name)).toEqual([]);
  });

  it('builds keys from the prefix and the parts, and names single records whole', () => {
    expect(stateKey('grant', 'alice%40corp.example', '111')).toBe('grant:v1:alice%40corp.example:111');
    expect(stateName('audit')).toBe('audit:v1');
    expect(legacyStateKey('grant', 'alice%40corp.example', '111')).toBe('grant:alice%40corp.example:111');
    expect(() => legacyStateKey('quota')).toThrow(/quota has no name from before the table/);
  });

  it('is the only place in src/ and test/ that spells a family: no file builds a key from a literal prefix', () => {
    // Every spelling a key could start with: today's families and the names from before the table.
    const names = new Set(families.flatMap(([, f]) => [f.prefix, f.legacy ?? ''].map((p) => p.split(':')[0]).filter((n) => n.length > 0)));
    // A key goes on straight after the colon; prose ("quota: Google refused…") has a space.
    const literal = new RegExp(`['"\`](${[...names].join('|')}):(?!\\s)`, 'g');
    const spelled = new Map<string, Set<string>>();
    for (const file of sources()) {
      const text = readFileSync(join(ROOT, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of text.matchAll(literal)) {
        spelled.set(file, (spelled.get(file) ?? new Set()).add(match[1]));
      }
    }
    expect([...spelled].map(([file, found]) => `${file}: ${[...found].join(', ')}`)).toEqual([]);
  });
});

function sources(): string[] {
  return ['src', 'test', 'bench', 'scripts'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(ts|mts|mjs|js)$/.test(e.name) && !e.parentPath.includes('node_modules'))
      .map((e) => relative(ROOT, join(e.parentPath, e.name)))
      .filter((file) => file !== 'src/state/keys.ts' && file !== 'src/state/keys.spec.ts'),
  );
}
