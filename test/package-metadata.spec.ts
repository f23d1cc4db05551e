import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

// The files a registry, a packager or a newcomer reads before any code runs:
// they must agree with each other and with package.json, or publishing fails
// (the MCP registry rejects an npm package whose mcpName differs from
// server.json's name) or points people at the wrong place.

const REPO = resolve(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
const pkg = JSON.parse(read('package.json'));
const server = JSON.parse(read('server.json'));
const nestCli = JSON.parse(read('nest-cli.json'));

// https://github.com/<owner>/<repo>, whichever way package.json spells it.
const repoUrl = String(pkg.repository?.url ?? '')
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');
const repoOwner = /^https:\/\/github\.com\/([^/]+)\/[^/]+$/.exec(repoUrl)?.[1];

describe('server.json (MCP registry) agrees with package.json', () => {
  it('declares a released registry schema', () => {
    expect(server.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/);
  });

  it('is named as package.json mcpName, in the io.github.<owner> namespace of the repository', () => {
    expect(repoOwner).toEqual(expect.any(String));
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name.split('/')[0]).toBe(`io.github.${repoOwner}`);
    expect(server.repository).toEqual({ url: repoUrl, source: 'github' });
  });

  it('fits the registry limits: description and title at most 100 characters, an exact version', () => {
    expect(server.description.length).toBeGreaterThan(0);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.title.length).toBeLessThanOrEqual(100);
    expect(server.version).toBe(pkg.version);
  });

  it('points at this npm package and version, run over stdio', () => {
    expect(server.packages).toEqual([
      expect.objectContaining({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } }),
    ]);
    expect(pkg.bin).toHaveProperty(pkg.name);
  });

  it('lists only real settings: every environment variable is in the README configuration table', () => {
    const readme = read('README.md');
    const names = server.packages[0].environmentVariables.map((v: { name: string }) => v.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect([name, readme.includes(`\`${name}\``)]).toEqual([name, true]);
    }
    for (const v of server.packages[0].environmentVariables) {
      if (/SECRET|TOKEN|_KEY$/.test(v.name)) {
        expect([v.name, v.isSecret]).toEqual([v.name, true]);
      }
    }
  });
});

describe('the package hygiene files', () => {
  it('LICENSE is the Apache License 2.0 text that package.json names', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const license = read('LICENSE');
    expect(license).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
  });

  it('CHANGELOG.md keeps an Unreleased section and one for the current version', () => {
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(changelog).toMatch(new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });

  it('SECURITY.md says how to report privately', () => {
    expect(read('SECURITY.md')).toMatch(/## Reporting a vulnerability[\s\S]*privately/);
  });

  it('nest-cli.json builds src with the build tsconfig, and start:dev uses it', () => {
    expect(nestCli.sourceRoot).toBe('src');
    expect(existsSync(join(REPO, nestCli.sourceRoot, `${nestCli.entryFile}.ts`))).toBe(true);
    expect(existsSync(join(REPO, nestCli.compilerOptions.builder.options.configPath))).toBe(true);
    expect(pkg.scripts['start:dev']).toMatch(/^nest start --watch\b/);
    expect(pkg.devDependencies).toHaveProperty('@nestjs/cli');
  });

  it('Nest and its companions are peer dependencies on any Nest 12 minor, and dev dependencies for this repository', () => {
    for (const name of ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', 'reflect-metadata', 'rxjs']) {
      expect([
        name,
        pkg.peerDependencies?.[name] !== undefined,
        pkg.devDependencies?.[name] !== undefined,
        pkg.dependencies?.[name],
      ]).toEqual([name, true, true, undefined]);
    }
    for (const name of ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express']) {
      expect(pkg.peerDependencies[name]).toBe('^12.0.0');
    }
  });
});
