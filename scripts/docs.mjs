// `npm run docs`: the README's generated parts, from the code that decides them
// (the model is github-mcp-server's generate_docs.go with its docs-check):
//
//   tools      every registered tool: title, access, annotations, whether it asks
//              a person, the Google scope it needs, its arguments with their
//              descriptions (from the tool registry and the JSON Schemas served)
//   tools-size the whole tools/list result as the built server sends it over stdio
//              (output schemas included), all tools and the `essential` preset
//   config     the configuration table (src/config/settings-table.ts)
//
// Each goes between <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name -->
// markers. `--check` writes nothing and exits 1 naming each part that differs;
// test/readme-docs.spec.ts runs it in `npm test`. Reads the built dist/; the
// output depends on the code alone (a clean environment, no clock, no paths).
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// `--readme <path>` reads (and writes) another copy; the drift spec checks a tampered one.
const readmeArg = process.argv.indexOf('--readme');
const README = readmeArg > 0 ? process.argv[readmeArg + 1] : join(ROOT, 'README.md');
const dist = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);

const [{ loadConfig }, { AppModule }, { ToolRegistry }, { catalogEntry }, { scopesFor }, { SETTINGS }] = await Promise.all([
  dist('config/config.js'),
  dist('app.module.js'),
  dist('tools/tool-registry.service.js'),
  dist('tools/tool-catalog.js'),
  dist('policy/tool-selection.js'),
  dist('config/settings-table.js'),
]);

const scratch = mkdtempSync(join(tmpdir(), 'gsc-docs-'));
/** Nothing ambient: no credential, no gcloud login, no inherited GSC_* setting; a throw-away state folder. */
const cleanEnv = (extra = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: scratch,
  GSC_STATE_DIR: join(scratch, 'state'),
  CLOUDSDK_CONFIG: join(scratch, 'gcloud'),
  METADATA_SERVER_DETECTION: 'none',
  ...extra,
});

/** The registered tools of a default server (every tool, no GSC_SITE_URL), as the registry holds and serves them. */
async function registeredTools() {
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(loadConfig(cleanEnv())), { logger: false });
  try {
    return app.get(ToolRegistry).tools.map((tool) => ({ spec: tool.spec, listed: catalogEntry(tool).listed }));
  } finally {
    await app.close();
  }
}

/** The size of the tools/list result the built bin writes on stdout (one JSON-RPC line). */
function toolsListBytes(env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/main.js')], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the built server did not answer tools/list within 30 s'));
    }, 30_000);
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.includes('"id":2'));
      if (!line) {
        return;
      }
      clearTimeout(timer);
      child.kill();
      const { result } = JSON.parse(line);
      // Characters of the result's compact JSON, as the bench's tool-list row counts them.
      resolve({ chars: JSON.stringify(result).length, tools: result.tools.length });
    });
    child.on('error', reject);
    const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'docs', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

const cell = (text) =>
  String(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');
const code = (text) => `\`${text}\``;
const scopeName = (scope) => scope.replace('https://www.googleapis.com/auth/', '');
/** A tool's Google scopes as the README shows them; a tool over the server's own store (annotations) needs none. */
const scopesOf = (spec) => scopesFor([spec]).map(scopeName).map(code).join(', ') || 'none (nothing sent to Google)';

function accessOf(spec) {
  return { read: 'read', write: 'write', destructive: 'destructive' }[spec.access];
}

function typeOf(schema) {
  if (!schema || typeof schema !== 'object') {
    return 'any';
  }
  if (schema.enum) {
    return schema.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  }
  if (schema.const !== undefined) {
    return JSON.stringify(schema.const);
  }
  if (schema.anyOf || schema.oneOf) {
    return (schema.anyOf ?? schema.oneOf).map(typeOf).join(' or ');
  }
  if (schema.type === 'array') {
    return `array of ${typeOf(schema.items)}`;
  }
  if (Array.isArray(schema.type)) {
    return schema.type.join(' or ');
  }
  return schema.type ?? 'object';
}

function argumentLines(inputSchema) {
  const properties = inputSchema.properties ?? {};
  const required = new Set(inputSchema.required ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    return ['- no arguments'];
  }
  return names.map((name) => {
    const schema = properties[name];
    const description = schema.description ?? (schema.anyOf ?? []).find((s) => s.description)?.description;
    return `- ${code(name)} (${typeOf(schema)}${required.has(name) ? '' : ', optional'})${description ? ` — ${cell(description)}` : ''}`;
  });
}

function toolsReference(tools) {
  const lines = [
    '| tool | title | access | asks a person | Google scope |',
    '|---|---|---|---|---|',
    ...tools.map(
      ({ spec }) =>
        `| [${code(spec.name)}](#tool-${spec.name.replace(/_/g, '-')}) | ${cell(spec.title)} | ${accessOf(spec)} | ${spec.access === 'destructive' ? 'yes' : 'no'} | ${scopesOf(spec)} |`,
    ),
    '',
  ];
  for (const { spec, listed } of tools) {
    const a = listed.annotations;
    const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].map((h) => `${h} ${a[h]}`).join(', ');
    lines.push(
      `<a id="tool-${spec.name.replace(/_/g, '-')}"></a>`,
      `#### ${code(spec.name)} — ${spec.title}`,
      '',
      `${accessOf(spec)}${spec.access === 'destructive' ? '; asks a person before it runs' : ''} · scope ${scopesOf(spec)} · ${hints}`,
      '',
      cell(listed.description),
      '',
      ...argumentLines(listed.inputSchema),
      '',
    );
  }
  return lines.join('\n').trimEnd();
}

function configTable() {
  const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);
  const rows = SETTINGS.map(
    (s) => `| ${code(s.name)}${s.secret ? ' (secret)' : ''} | ${cell(s.more ? `${sentence(s.help)} ${s.more}` : s.help)} |`,
  );
  return ['| variable | meaning |', '|---|---|', ...rows].join('\n');
}

function sizeLine(all, essential) {
  const n = (value) => value.toLocaleString('en-US');
  return (
    `The whole \`tools/list\` result as the server sends it (names, titles, descriptions, input and output schemas, annotations) is ` +
    `${n(all.chars)} characters of JSON for all ${all.tools} tools, and ${n(essential.chars)} for the ${essential.tools} of \`GSC_ALLOW_TOOLS=essential\`.`
  );
}

function replaceBlock(text, name, body) {
  const begin = `<!-- BEGIN GENERATED: ${name} (npm run docs) -->`;
  const end = `<!-- END GENERATED: ${name} -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) {
    throw new Error(`README.md has no ${begin} … ${end} markers`);
  }
  return `${text.slice(0, from + begin.length)}\n${body}\n${text.slice(to)}`;
}

try {
  const tools = await registeredTools();
  const [all, essential] = [await toolsListBytes(), await toolsListBytes({ GSC_ALLOW_TOOLS: 'essential' })];
  const before = readFileSync(README, 'utf8');
  const blocks = { tools: toolsReference(tools), 'tools-size': sizeLine(all, essential), config: configTable() };
  let after = before;
  for (const [name, body] of Object.entries(blocks)) {
    after = replaceBlock(after, name, body);
  }
  if (process.argv.includes('--check')) {
    const stale = Object.entries(blocks)
      .filter(([name, body]) => replaceBlock(before, name, body) !== before)
      .map(([name]) => name);
    if (stale.length > 0) {
      process.stderr.write(`README.md is out of date with the code (${stale.join(', ')}); run npm run docs and commit the result\n`);
      process.exitCode = 1;
    }
  } else if (after !== before) {
    writeFileSync(README, after);
    process.stderr.write('README.md: generated parts updated\n');
  } else {
    process.stderr.write('README.md: generated parts already current\n');
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
