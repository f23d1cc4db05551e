import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';

// scripts/check-folder-cycles.mjs, run as `npm test` runs it (pretest): on src/ itself,
// and on small trees written here, one with each kind of import that can close a cycle.

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Writes a src-like tree (path → text) into a fresh folder and returns its path. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'folder-cycles-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string, ...flags: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, ['scripts/check-folder-cycles.mjs', root, ...flags], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

// A layered tree: the root wires everything, mcp over policy over config over common.
const LAYERED = {
  'app.module.ts': "import { McpModule } from './mcp/mcp.module.js';\nexport const app = McpModule;\n",
  'mcp/mcp.module.ts': "import { decide } from '../policy/decide.js';\nexport const McpModule = decide;\n",
  'mcp/approval/plan.ts': "import type { Rule } from '../../config/rule.js';\nexport type Plan = Rule;\n",
  'policy/decide.ts': "import { rule } from '../config/rule.js';\nexport const decide = rule;\n",
  'config/rule.ts': "import { quote } from '../common/quote.js';\nexport const rule = quote;\nexport type Rule = string;\n",
  'common/quote.ts': 'export const quote = (s: string) => `"${s}"`;\n',
};

describe('check-folder-cycles', () => {
  it('passes on src/ as it is', () => {
    expect(check('src')).toEqual({ status: 0, stderr: '' });
  });

  it('passes on a layered tree, where arrows only point down', () => {
    expect(check(tree(LAYERED))).toEqual({ status: 0, stderr: '' });
  });

  it('fails on a cycle closed by a type-only import, naming the folders and the import that closes it', () => {
    const root = tree({
      ...LAYERED,
      'config/uses-tools.ts': "import type { Plan } from '../mcp/approval/plan.js';\nexport type Uses = Plan;\n",
    });
    const { status, stderr } = check(root);
    expect(status).toBe(1);
    expect(stderr).toContain(`Folder cycle in ${root}/ among config, mcp`);
    expect(stderr).toContain('config -> mcp (config/uses-tools.ts: ../mcp/approval/plan.js)');
    expect(stderr).toContain('mcp -> config (mcp/approval/plan.ts: ../../config/rule.js)');
  });

  it('fails on a three-folder cycle closed by a re-export, and reports the shortest round trip', () => {
    const root = tree({ ...LAYERED, 'common/re-export.ts': "export { decide } from '../policy/decide.js';\n" });
    const { status, stderr } = check(root);
    expect(status).toBe(1);
    expect(stderr).toContain('among common, config, policy;');
    expect(stderr.trim().split('\n').slice(1)).toEqual([
      '  common -> policy (common/re-export.ts: ../policy/decide.js)',
      '  policy -> config (policy/decide.ts: ../config/rule.js)',
      '  config -> common (config/rule.ts: ../common/quote.js)',
    ]);
  });

  it('counts a dynamic import and a cycle through the files at the root', () => {
    const dynamic = check(tree({ ...LAYERED, 'common/late.ts': "export const late = () => import('../config/rule.js');\n" }));
    expect(dynamic.status).toBe(1);
    expect(dynamic.stderr).toContain('among common, config;');
    const throughRoot = check(
      tree({ ...LAYERED, 'config/options.ts': "import type { app } from '../app.module.js';\nexport type Options = typeof app;\n" }),
    );
    expect(throughRoot.status).toBe(1);
    expect(throughRoot.stderr).toContain('(root) -> mcp (app.module.ts: ./mcp/mcp.module.js)');
  });

  it('ignores an import written in a comment or a string', () => {
    const root = tree({
      ...LAYERED,
      'common/notes.ts': "// import { decide } from '../policy/decide.js';\nexport const text = \"import '../policy/decide.js'\";\n",
    });
    expect(check(root)).toEqual({ status: 0, stderr: '' });
  });

  describe('file circles', () => {
    // Two files of one folder that import each other, one of the arrows type-only.
    const CIRCLE = {
      ...LAYERED,
      'config/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'config/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
    };

    it('fails on a circle of files inside one folder, type-only imports included, naming its round trip', () => {
      const { status, stderr } = check(tree(CIRCLE));
      expect(status).toBe(1);
      expect(stderr).toContain('File circle in');
      expect(stderr).toContain('config/a.ts -> config/b.ts (./b.js)');
    });

    it('passes on a pinned circle, and fails when a file joins it or a new one appears', () => {
      const root = tree(CIRCLE);
      const pin = join(root, '..', `${root.split('/').pop()}-pin.json`);
      made.push(pin);
      writeFileSync(pin, JSON.stringify({ groups: [['config/a.ts', 'config/b.ts']] }));
      expect(check(root, `--pin=${pin}`)).toEqual({ status: 0, stderr: '' });

      writeFileSync(join(root, 'config/c.ts'), "import type { A } from './a.js';\nexport type C = A;\n");
      writeFileSync(
        join(root, 'config/a.ts'),
        "import type { B } from './b.js';\nimport type { C } from './c.js';\nexport type A = { b?: B; c?: C };\n",
      );
      const grown = check(root, `--pin=${pin}`);
      expect(grown.status).toBe(1);
      expect(grown.stderr).toContain('among 3 files that is not pinned');
    });

    it('fails when a pinned circle shrank until the pin says so, and --update pins only a shorter list', () => {
      const root = tree(CIRCLE);
      const pin = join(root, '..', `${root.split('/').pop()}-pin.json`);
      made.push(pin);
      writeFileSync(pin, JSON.stringify({ groups: [['config/a.ts', 'config/b.ts']] }));
      writeFileSync(join(root, 'config/b.ts'), 'export type B = { a?: unknown };\n');
      const shrunk = check(root, `--pin=${pin}`);
      expect(shrunk.status).toBe(1);
      expect(shrunk.stderr).toContain('no longer stands as pinned (good): config/a.ts, config/b.ts');
      expect(check(root, `--pin=${pin}`, '--update').status).toBe(0);
      expect(JSON.parse(readFileSync(pin, 'utf8')).groups).toEqual([]);
      expect(check(root, `--pin=${pin}`)).toEqual({ status: 0, stderr: '' });
      // An update cannot pin a new circle.
      writeFileSync(join(root, 'config/b.ts'), "import type { A } from './a.js';\nexport type B = { a?: A };\n");
      expect(check(root, `--pin=${pin}`, '--update').status).toBe(1);
      expect(JSON.parse(readFileSync(pin, 'utf8')).groups).toEqual([]);
    });
  });
});
