import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Injectable, Options, Req, Res } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import { HttpIdentity, requestOrigin } from './http-identity.service.js';
import { HTTP_MOUNT, type HttpMount } from './http-mount.js';
import { checkSurface } from './http-surface.js';
import {
  AI_CATALOG_PATH,
  AI_CATALOG_TYPE,
  aiCatalog,
  publicBase,
  SERVER_CARD_SUFFIX,
  SERVER_CARD_TYPE,
  serverCard,
} from './server-card.js';

type Request = IncomingMessage & { originalUrl?: string };

/**
 * Discovery documents are public by design (discovery.md, "Information
 * Disclosure", "CORS Requirements"): no credential — a client reads the card
 * before it has one, and learns from it which one it needs — and any Origin
 * may read them. The Host is validated as on every route, so a DNS-rebinding
 * page still gets nothing, and the URLs in them are ones this deployment
 * answers to. Cached an hour, revalidated by ETag.
 */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

@Injectable()
abstract class DiscoveryDocument {
  constructor(
    protected readonly identity: HttpIdentity,
    @Inject(CONFIG) protected readonly config: Config,
    @Inject(HTTP_MOUNT) protected readonly mount: HttpMount,
  ) {}

  protected serve(req: Request, res: ServerResponse, type: string, build: (base: string, path: string) => unknown): void {
    const surface = checkSurface(req, this.config, this.mount, false, 'any');
    if (!surface.ok) {
      res.writeHead(surface.status, { 'content-type': 'application/json', ...CORS });
      res.end(JSON.stringify({ error: surface.message }));
      return;
    }
    const path = new URL(req.originalUrl ?? req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    const body = JSON.stringify(build(publicBase(this.config.http.publicUrl, requestOrigin(req)), path));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    const headers = { ...CORS, etag, 'cache-control': 'public, max-age=3600', vary: 'Host' };
    if (matches(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': type });
    res.end(body);
  }

  /** A browser's preflight (a page sending If-None-Match). */
  protected preflight(res: ServerResponse): void {
    res.writeHead(204, { ...CORS, 'access-control-max-age': '3600' });
    res.end();
  }
}

/** GET <mcp path>/server-card: this server's Server Card (SEP-2127, experimental). */
@Controller()
export class ServerCardController extends DiscoveryDocument {
  @Get()
  card(@Req() req: Request, @Res() res: ServerResponse): void {
    // The card names the endpoint it sits under, as the request reached it (a host's global prefix included).
    this.serve(req, res, SERVER_CARD_TYPE, (base, path) =>
      serverCard(`${base}${path.slice(0, -(SERVER_CARD_SUFFIX.length + 1))}`, this.identity.mode),
    );
  }

  @Options()
  options(@Res() res: ServerResponse): void {
    this.preflight(res);
  }
}

/** GET /.well-known/ai-catalog.json: an AI Catalog whose one entry is this server's card. */
@Controller()
export class AiCatalogController extends DiscoveryDocument {
  @Get()
  catalog(@Req() req: Request, @Res() res: ServerResponse): void {
    this.serve(req, res, AI_CATALOG_TYPE, (base, path) => {
      const prefix = path.slice(0, -(AI_CATALOG_PATH.length + 1));
      return aiCatalog(`${base}${prefix}/${this.mount.mcpPath}/${SERVER_CARD_SUFFIX}`);
    });
  }

  @Options()
  options(@Res() res: ServerResponse): void {
    this.preflight(res);
  }
}

/** Whether an If-None-Match header names this entity tag (or `*`); weak comparison, as RFC 9110 asks for it. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) {
    return false;
  }
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
