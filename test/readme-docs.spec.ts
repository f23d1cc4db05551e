import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

// The README's tools reference, tools/list size and configuration table are
// generated (`npm run docs`, scripts/docs.mjs) from the tool registry and the
// settings table; this fails when the committed README says something else.

const ROOT = resolve(import.meta.dirname, '..');
const docs = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts/docs.mjs'), '--check', ...args], { encoding: 'utf8', timeout: 90_000 });

describe('README generated parts (npm run docs)', () => {
  it('agree with what the code says', () => {
    const result = docs();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('a README that drifted is refused, naming the part', () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'gsc-readme-')), 'README.md');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const tampered = readme
      .replace(/^\| `GSC_READ_ONLY` \|.*$/m, '| `GSC_READ_ONLY` | something else |')
      .replace(/\| \[`delete_site`\]\(#tool-delete-site\) \|[^\n]*/, '');
    expect(tampered).not.toBe(readme);
    writeFileSync(copy, tampered);
    const result = docs('--readme', copy);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/README\.md is out of date with the code \(tools, config\); run npm run docs/);
    expect(readFileSync(copy, 'utf8')).toBe(tampered);
  });

  it('every setting --help names has its row in the README table', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const help = spawnSync(process.execPath, [join(ROOT, 'dist/main.js'), '--help'], { encoding: 'utf8' }).stdout;
    const names = [...help.matchAll(/^ {2}((?:GSC_|GOOGLE_|ELICITATION)\w*)/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(30);
    for (const name of names) {
      expect([name, readme.includes(`| \`${name}\``)]).toEqual([name, true]);
    }
  });
});

describe('npm run demo / npm run docs do not rebuild a current dist/', () => {
  const decide = (...flags: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs'), '--dry-run', ...flags], { encoding: 'utf8' }).stdout.trim();

  it('skips the build right after one, and builds when an output is older than the sources', () => {
    expect(decide()).toBe('would not build: dist/ is current');
    // Judged as if dist/demo.js dated from 2020: dist/ itself is never touched while other suites run from it.
    expect(decide('--as-if-older')).toBe('would build: sources changed since dist/ was built');
    expect(decide()).toBe('would not build: dist/ is current');
  });
});
