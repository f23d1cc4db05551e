import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

// The README's map of src/ (## Development → ### The map of `src/`) names every folder, in its
// list and in its arrows, and names none that is gone: a newcomer reads the layers there first.
// Every src/ path the README names, anywhere, exists.

const ROOT = join(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text from `heading` to the next heading of the same or a higher level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) {
    throw new Error(`README.md has no "${heading}"`);
  }
  const level = /^#+/.exec(heading)![0].length;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** Folders of src/ that hold code (a folder emptied by a move is none). */
const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && readdirSync(join(ROOT, 'src', e.name), { recursive: true }).some((f) => String(f).endsWith('.ts')))
  .map((e) => e.name)
  .sort();

const map = section(section(readme, '## Development'), '### The map of `src/`');
const list = map.slice(0, map.indexOf('```text'));
const arrows = /```text\n([\s\S]*?)```/.exec(map)?.[1] ?? '';

describe('README map of src/', () => {
  it('reads the real folders', () => {
    expect(folders).toEqual(expect.arrayContaining(['common', 'config', 'identity', 'mcp', 'policy']));
  });

  it('gives every folder of src/ its line in the list', () => {
    const named = new Set([...list.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]));
    expect(folders.filter((f) => !named.has(f))).toEqual([]);
  });

  it('lists no folder that src/ does not have', () => {
    const bullets = [...list.matchAll(/^- (.*)$/gm)].flatMap((m) => [...m[1].split(' — ')[0].matchAll(/`([a-z-]+)\/`/g)].map((n) => n[1]));
    expect(bullets.length).toBeGreaterThan(0);
    expect(bullets.filter((f) => !folders.includes(f))).toEqual([]);
  });

  it('draws every folder in the arrows', () => {
    const drawn = new Set(
      arrows
        .split('\n')
        .flatMap((line) => line.split('→')[0].split(/[\s,]+/))
        .filter(Boolean),
    );
    expect(folders.filter((f) => !drawn.has(f))).toEqual([]);
  });

  it('names no src/ path that does not exist, anywhere in the README', () => {
    // A path as written: `src/mcp/tool-call.ts`, `src/google/`, src/emulator/README.md; a pattern (src/*/…, <folder>) is no path.
    const named = [...readme.matchAll(/\bsrc\/[\w./-]*[\w/]/g)].map((m) => m[0]).filter((path) => !/[*<…{]/.test(path));
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named)].filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
