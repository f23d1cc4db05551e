import { SERVER_NAME, serverVersion } from '../common/product.js';
import { AUDIT_EVENTS } from '../mcp/approval/audit-trail.service.js';

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
        summary: 'Readiness: the credential can mint an access token for the requested scopes now, and the state store answers',
        responses: { '200': { description: '{ status: "ok", credential, state }' }, '503': { description: '{ status: "error", reason, state }' } },
      },
    },
    '/admin/tools': { get: { summary: 'Registered tools with annotations and the guarded flag, and what was filtered out and why', responses: { '200': { description: '{ registered: [...], excluded: [...] }' } } } },
    '/admin/config': { get: { summary: 'Effective configuration, secrets redacted; credential kind and principal; scopes', responses: { '200': { description: 'The configuration' } } } },
    '/admin/audit': {
      get: {
        summary: 'Decisions about guarded calls from the state store, newest first',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
          { name: 'before', in: 'query', description: 'Only entries older than this entry id (next_before of the previous page)', schema: { type: 'string', pattern: '^\\d{1,15}-\\d{1,15}$' } },
          { name: 'tool', in: 'query', schema: { type: 'string' } },
          { name: 'outcome', in: 'query', description: 'The decision (the entry\'s event)', schema: { type: 'string', enum: [...AUDIT_EVENTS] } },
          { name: 'principal', in: 'query', schema: { type: 'string', maxLength: 320 } },
        ],
        responses: {
          '200': { description: '{ entries: [{ id, time, event, tool, target_fingerprint, path, era, principal, reason? }], next_before? }' },
          '400': { description: 'A query parameter is invalid or unknown' },
          '503': { description: '{ status: "error", reason }: the state store cannot be reached' },
        },
      },
    },
    '/metrics': { get: { summary: 'Prometheus metrics (HTTP server only)', responses: { '200': { description: 'text/plain exposition format' } } } },
  },
} as const;
