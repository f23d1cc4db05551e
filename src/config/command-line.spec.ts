import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { serverVersion } from '../common/product.js';
import { parseCommandLine, usage } from './command-line.js';
import { SETTING_NAMES } from './settings-table.js';

describe('parseCommandLine', () => {
  it('serves stdio by default and HTTP with --http', () => {
    expect(parseCommandLine([])).toEqual({ kind: 'serve', forceHttp: false });
    expect(parseCommandLine(['--http'])).toEqual({ kind: 'serve', forceHttp: true });
  });

  it('answers --help, -h and --version wherever they stand', () => {
    expect(parseCommandLine(['--http', '--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['-h'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
  });

  it.each([
    ['--verbose', /^unknown option "--verbose"; .* --help/],
    ['stdio', /^unexpected argument "stdio"/],
    ['--port=3000', /^unknown option "--port=3000"/],
  ])('refuses %s', (arg, message) => {
    expect(() => parseCommandLine([arg])).toThrow(message);
  });
});

describe('usage', () => {
  it('lists every setting of the table', () => {
    const text = usage();
    for (const name of SETTING_NAMES) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/GSC_SERVICE_ACCOUNT_KEY \*/);
  });
});

describe('serverVersion', () => {
  it('reads the version from package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(serverVersion()).toBe(pkg.version);
  });
});
