import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../common/product.js';
import type { HttpMount } from '../http/http-mount.js';

/** Where `npm run build` writes the document (scripts/openapi.mjs), generated from the mounted controllers by @nestjs/swagger. */
export const OPENAPI_FILE = 'dist/admin-openapi.json';

type Document = { paths: Record<string, unknown>; servers?: unknown } & Record<string, unknown>;

let generated: Document | undefined;

/**
 * The operations API's OpenAPI document as generated for the standalone mount
 * (/admin, /metrics), with its paths moved to where this module is mounted —
 * e.g. /api/admin/search-console inside a company's app (the global prefix is
 * read off the request for the document itself).
 */
export function adminOpenApi(mount: HttpMount, requestPath: string): Document {
  generated ??= JSON.parse(readFileSync(join(packageRoot(), OPENAPI_FILE), 'utf8')) as Document;
  const own = `/${mount.adminPath}/openapi.json`;
  const prefix = requestPath.endsWith(own) ? requestPath.slice(0, -own.length) : '';
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(generated.paths)) {
    const moved = path.startsWith('/admin/')
      ? `${prefix}/${mount.adminPath}${path.slice('/admin'.length)}`
      : path === '/metrics' && mount.metricsPath
        ? `${prefix}/${mount.metricsPath}`
        : path === '/metrics'
          ? undefined
          : `${prefix}${path}`;
    if (moved) {
      paths[moved] = item;
    }
  }
  return { ...generated, paths };
}
