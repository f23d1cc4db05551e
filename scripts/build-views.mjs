// Builds the MCP Apps views (PRODUCT.md §5d) at build time: each entry of
// src/views/app/ is bundled by esbuild (minified, for the browser) and inlined,
// with the shared stylesheet, into one self-contained HTML file in dist/views/.
// No external origin is referenced, so the default MCP Apps CSP suffices. The
// server reads a file only when a resources/read asks for it; nothing here runs
// at start-up. The build fails when a view outgrows 200 KB (before compression)
// or when its script could end the inline <script> element early.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const SOURCE = 'src/views/app';
const OUT = 'dist/views';
const LIMIT_BYTES = 200 * 1024;

const VIEWS = [
  { entry: 'performance.ts', file: 'performance.html', title: 'Search performance' },
  { entry: 'index-health.ts', file: 'index-health.html', title: 'Index health' },
];

const css = (
  await build({ entryPoints: [join(SOURCE, 'views.css')], bundle: true, minify: true, write: false, logLevel: 'warning' })
).outputFiles[0].text.trim();

mkdirSync(OUT, { recursive: true });
const sizes = [];
for (const view of VIEWS) {
  const result = await build({
    entryPoints: [join(SOURCE, view.entry)],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const script = result.outputFiles[0].text.trim();
  // Google- and public-supplied text goes in as text only (src/views/app/dom.ts); no bundled code may parse markup.
  const parser = /\b(innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|document\.write)\b/.exec(script);
  if (parser) {
    throw new Error(`${view.entry}: the bundle uses ${parser[1]}; views insert text with textContent only`);
  }
  if (/<\/script|<!--/i.test(script)) {
    throw new Error(`${view.entry}: the bundle contains "</script" or "<!--", which would break out of the inline script`);
  }
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>${view.title}</title><style>${css}</style></head><body><main id="app"></main><script>${script}</script></body></html>\n`;
  const bytes = Buffer.byteLength(html);
  if (bytes > LIMIT_BYTES) {
    throw new Error(`${view.file} is ${bytes} bytes, over the ${LIMIT_BYTES}-byte limit of a view`);
  }
  writeFileSync(join(OUT, view.file), html);
  sizes.push({ [view.file]: bytes });
}
writeFileSync(join(OUT, 'sizes.json'), `${JSON.stringify(Object.assign({}, ...sizes), null, 1)}\n`);
