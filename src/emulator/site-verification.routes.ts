// Site Verification v1. Resource ids travel percent-encoded in bodies
// (dns%3A%2F%2Fexample.com) and are compared decoded once in paths, so a
// client that encodes an already-encoded id gets the 404 Google gives it.

import { createHash } from 'node:crypto';
import { badRequest, invalidParameter, notFound } from './emulator-errors.js';
import { checkFields, objectBody, SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import { normalizeVerificationSite } from './emulator-state.js';
import type { VerificationSite, WebResource } from './emulator-types.js';
import { resourceIdFor, siteCoversProperty } from './property-scope.js';

const SERVICE = 'siteverification.googleapis.com';
const FULL = [SCOPES.siteverification];
const VERIFY = [SCOPES.siteverification, SCOPES.siteverificationVerifyOnly];
const SITE_METHODS = ['FILE', 'META', 'ANALYTICS', 'TAG_MANAGER'];
const DOMAIN_METHODS = ['DNS_TXT', 'DNS_CNAME', 'DNS'];

const bad = (message: string, location?: string) => invalidParameter('classic', message, location);

function parseSite(value: unknown, where = 'site'): VerificationSite {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw bad(`Required field ${where} is missing.`, where);
  }
  const site = value as Record<string, unknown>;
  checkFields(site, ['type', 'identifier'], 'classic', where);
  const { type, identifier } = site;
  if (type !== 'SITE' && type !== 'INET_DOMAIN') {
    throw bad(`Invalid value for ${where}.type: ${JSON.stringify(type)}`, `${where}.type`);
  }
  if (typeof identifier !== 'string' || !identifier) {
    throw bad(`Required field ${where}.identifier is missing.`, `${where}.identifier`);
  }
  if (type === 'SITE') {
    if (!/^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(identifier) || !identifier.endsWith('/')) {
      throw bad(`Invalid site identifier '${identifier}': a SITE must be a full URL ending in '/'.`, `${where}.identifier`);
    }
  } else if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i.test(identifier)) {
    throw bad(`Invalid domain identifier '${identifier}': an INET_DOMAIN is a bare domain name.`, `${where}.identifier`);
  }
  return normalizeVerificationSite({ type, identifier });
}

function checkMethod(method: unknown, site: VerificationSite, location: string): string {
  if (typeof method !== 'string' || !method) {
    throw bad('Required parameter: verificationMethod', location);
  }
  const allowed = site.type === 'SITE' ? SITE_METHODS : DOMAIN_METHODS;
  if (![...SITE_METHODS, ...DOMAIN_METHODS].includes(method)) {
    throw bad(`Invalid verificationMethod '${method}'.`, location);
  }
  if (!allowed.includes(method)) {
    throw bad(`The verification method ${method} cannot be used with a site of type ${site.type}.`, location);
  }
  return method;
}

/** Opaque but stable per caller, site and method, like Google's tokens. */
function tokenFor(principal: string, site: VerificationSite, method: string): string {
  const digest = createHash('sha256').update(`${principal}|${site.type}|${site.identifier}|${method}`).digest();
  const opaque = digest.toString('base64url').slice(0, 43);
  switch (method) {
    case 'DNS_TXT':
    case 'DNS':
      return `google-site-verification=${opaque}`;
    case 'DNS_CNAME':
      return `${digest.toString('hex').slice(0, 12)} gv-${digest.toString('hex').slice(12, 40)}.dv.googlehosted.com`;
    case 'META':
      return `<meta name="google-site-verification" content="${opaque}" />`;
    case 'FILE':
      return `google${digest.toString('hex').slice(0, 16)}.html`;
    default:
      return opaque;
  }
}

function findResource(ctx: RouteContext): WebResource {
  const resource = ctx.state.resources.get(ctx.params.id);
  if (!resource) {
    throw notFound('classic', 'Not Found');
  }
  return resource;
}

function parseOwners(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw bad('A verified resource must keep at least one owner.', 'owners');
  }
  for (const o of value) {
    if (typeof o !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(o)) {
      throw bad(`Invalid owner ${JSON.stringify(o)}.`, 'owners');
    }
  }
  return [...new Set(value as string[])];
}

function checkSameSite(resource: WebResource, value: unknown): void {
  if (value === undefined) {
    return;
  }
  const site = parseSite(value);
  if (site.type !== resource.site.type || site.identifier !== resource.site.identifier) {
    throw bad('The site of a verified resource cannot be changed.', 'site');
  }
}

// update (PUT) replaces the owner list; patch (PATCH) changes it only when the body names one.
function writeOwners(ctx: RouteContext, mode: 'replace' | 'patch') {
  const resource = findResource(ctx);
  const body = objectBody(ctx.body, 'classic');
  checkFields(body, ['id', 'site', 'owners'], 'classic');
  checkSameSite(resource, body.site);
  if (mode === 'replace' || body.owners !== undefined) {
    resource.owners = parseOwners(body.owners);
  }
  return { status: 200, body: resource };
}

const route = (def: Omit<RouteDef, 'style' | 'service'>): RouteDef => ({ ...def, style: 'classic', service: SERVICE });

export const siteVerificationRoutes: RouteDef[] = [
  route({
    name: 'webResource.getToken',
    method: 'POST',
    path: '/siteVerification/v1/token',
    rpcMethod: 'siteVerification.webResource.getToken',
    scopes: VERIFY,
    handle(ctx) {
      const body = objectBody(ctx.body, 'classic');
      checkFields(body, ['site', 'verificationMethod'], 'classic');
      const site = parseSite(body.site);
      const method = checkMethod(body.verificationMethod, site, 'verificationMethod');
      return { status: 200, body: { method, token: tokenFor(ctx.principal, site, method) } };
    },
  }),
  route({
    name: 'webResource.insert',
    method: 'POST',
    path: '/siteVerification/v1/webResource',
    rpcMethod: 'siteVerification.webResource.insert',
    scopes: VERIFY,
    handle(ctx) {
      const body = objectBody(ctx.body, 'classic');
      checkFields(body, ['id', 'site', 'owners'], 'classic');
      const site = parseSite(body.site);
      const method = checkMethod(ctx.query.verificationMethod, site, 'verificationMethod');
      // A site the caller already owns (itself, or through a verified domain or URL prefix above it) is verified: insert answers the resource.
      const property = site.type === 'INET_DOMAIN' ? `sc-domain:${site.identifier}` : site.identifier;
      if (!ctx.state.ownsViaVerification(ctx.principal, property) && !ctx.state.isTokenPlaced(site, method)) {
        throw badRequest('classic', 'The necessary verification token could not be found on your site.');
      }
      const id = resourceIdFor(site);
      const key = decodeURIComponent(id);
      const resource = ctx.state.resources.get(key) ?? { id, site, owners: [] };
      if (!resource.owners.includes(ctx.principal)) {
        resource.owners = [...resource.owners, ctx.principal];
      }
      ctx.state.resources.set(key, resource);
      // Verification proves ownership of every listed property the site covers.
      for (const property of ctx.state.sites.keys()) {
        if (siteCoversProperty(site, property)) {
          ctx.state.sites.set(property, 'siteOwner');
        }
      }
      return { status: 200, body: resource };
    },
  }),
  route({
    name: 'webResource.list',
    method: 'GET',
    path: '/siteVerification/v1/webResource',
    rpcMethod: 'siteVerification.webResource.list',
    scopes: FULL,
    handle(ctx) {
      // "Get the list of your verified websites and domains": only those the caller is a verified owner of.
      const items = [...ctx.state.resources.values()].filter((r) => r.owners.includes(ctx.principal));
      return { status: 200, body: items.length ? { items } : {} };
    },
  }),
  route({
    name: 'webResource.get',
    method: 'GET',
    path: '/siteVerification/v1/webResource/{id}',
    rpcMethod: 'siteVerification.webResource.get',
    scopes: FULL,
    handle: (ctx) => ({ status: 200, body: findResource(ctx) }),
  }),
  route({
    name: 'webResource.update',
    method: 'PUT',
    path: '/siteVerification/v1/webResource/{id}',
    rpcMethod: 'siteVerification.webResource.update',
    scopes: FULL,
    handle: (ctx) => writeOwners(ctx, 'replace'),
  }),
  route({
    name: 'webResource.patch',
    method: 'PATCH',
    path: '/siteVerification/v1/webResource/{id}',
    rpcMethod: 'siteVerification.webResource.patch',
    scopes: FULL,
    handle: (ctx) => writeOwners(ctx, 'patch'),
  }),
  route({
    name: 'webResource.delete',
    method: 'DELETE',
    path: '/siteVerification/v1/webResource/{id}',
    rpcMethod: 'siteVerification.webResource.delete',
    scopes: FULL,
    handle(ctx) {
      const resource = findResource(ctx);
      ctx.state.resources.delete(ctx.params.id);
      // Unverifying costs ownership: the property itself, and for a domain every property on it.
      for (const property of ctx.state.sites.keys()) {
        const affected =
          resource.site.type === 'INET_DOMAIN' ? siteCoversProperty(resource.site, property) : property === resource.site.identifier;
        if (affected) {
          ctx.state.sites.set(property, 'siteUnverifiedUser');
        }
      }
      return { status: 204 };
    },
  }),
];
