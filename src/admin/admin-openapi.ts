import { SERVER_NAME, serverVersion } from '../common/product.js';

/** OpenAPI 3.1 description of the operations endpoints, served at /admin/openapi.json. */
export const ADMIN_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: `${SERVER_NAME} operations API`,
    version: serverVersion(),
    description: 'Read-only operations endpoints beside the MCP endpoint (/mcp). They need GSC_ADMIN_TOKEN as a bearer token, or a loopback caller when it is unset.',
  },
  components: { securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'GSC_ADMIN_TOKEN' } } },
  security: [{ adminToken: [] }],
  paths: {
    '/admin/health': { get: { summary: 'Liveness', responses: { '200': { description: '{ status: "ok", uptime_seconds }' } } } },
    '/admin/ready': {
      get: {
        summary: 'Readiness: the credential can mint an access token for the requested scopes now',
        responses: { '200': { description: '{ status: "ok", credential }' }, '503': { description: '{ status: "error", reason }' } },
      },
    },
    '/admin/tools': { get: { summary: 'Registered tools with annotations and the guarded flag, and what was filtered out and why', responses: { '200': { description: '{ registered: [...], excluded: [...] }' } } } },
    '/admin/config': { get: { summary: 'Effective configuration, secrets redacted; credential kind and principal; scopes', responses: { '200': { description: 'The configuration' } } } },
    '/admin/audit': {
      get: {
        summary: 'Recent decisions about guarded calls, newest first',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } }],
        responses: { '200': { description: '{ entries: [{ time, event, tool, target_fingerprint, path, era, principal, reason? }] }' } },
      },
    },
    '/admin/quota': {
      get: {
        summary: "The quota ledger: this server's own count of URL inspections (per property, this minute and Pacific day) and Indexing publishes (per Cloud project, this Pacific day), and what remains; a lower bound of Google's count",
        parameters: [{ name: 'property', in: 'query', schema: { type: 'string' }, description: 'Only this property (exact spelling)' }],
        responses: {
          '200': { description: '{ now, day_resets_at, ledger: "available" | "unavailable", note, inspection: [{ property, minute, day, google_refused_at?, lower_bound }], indexing_publish: [{ project, day, ... }] }' },
          '400': { description: 'property is not one string' },
        },
      },
    },
    '/metrics': { get: { summary: 'Prometheus metrics (HTTP server only)', responses: { '200': { description: 'text/plain exposition format' } } } },
  },
} as const;
