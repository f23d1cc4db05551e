import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { nodeVersionProblem, REQUIRED_NODE } from './node-version.js';

const REPO = resolve(import.meta.dirname, '../..');

describe('nodeVersionProblem', () => {
  it.each(['20.20.2', '22.12.0', '18.19.1', '22.9.3'])('refuses Node %s, naming it and the required version', (running) => {
    const problem = nodeVersionProblem(running);
    expect(problem).toContain(`Node.js ${running}`);
    expect(problem).toContain('Node.js 22.13 or newer');
    expect(problem).not.toContain('\n');
  });

  it.each(['22.13.0', '22.13.1', '22.20.0', '23.0.0', '24.11.1', '25.2.0'])('accepts Node %s', (running) => {
    expect(nodeVersionProblem(running)).toBeUndefined();
  });

  it('is the version package.json engines and the README name, and no other', () => {
    const pkg = JSON.parse(readFileSync(resolve(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    const short = REQUIRED_NODE.replace(/\.0$/, '');
    expect(pkg.engines.node).toBe(`>=${short}`);
    const readme = readFileSync(resolve(REPO, 'README.md'), 'utf8');
    const minimums = [...readme.matchAll(/Node(?:\.js)? (?:≥ ?)?(\d+\.\d+)(?: or newer| or later|\+)?/g)].map((m) => m[1]);
    expect(minimums.length).toBeGreaterThan(0);
    expect(new Set(minimums.filter((v) => v.startsWith('22.')))).toEqual(new Set([short]));
  });
});
