import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { packageRoot, serverVersion } from '../common/product.js';

// MCP Server Cards (SEP-2127), experimental: modelcontextprotocol/experimental-ext-server-card
// ("Status: Experimental … not an accepted or official MCP extension"), docs/discovery.md and
// schema.json (pinned in test/server-card/). A card is served at GET <streamable-http-url>/server-card
// and listed in /.well-known/ai-catalog.json. It says who the server is and how to reach it, never
// what it offers: tools, resources and prompts stay with tools/list and its siblings.

export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
export const AI_CATALOG_TYPE = 'application/ai-catalog+json';
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_SUFFIX = 'server-card';
export const AI_CATALOG_PATH = '.well-known/ai-catalog.json';

/** The first 2026-era revision; the 2025-era ones are the SDK's initialize list. */
const MODERN_REVISIONS = ['2026-07-28'];

/** What the card takes from server.json, the registry entry: one description of the server, not two. */
interface RegistryEntry {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly websiteUrl?: string;
  readonly repository?: { readonly url: string; readonly source: string };
}

let entry: RegistryEntry | undefined;

/** server.json, read once, on the first card (never at start-up); it ships in the package beside package.json. */
function registryEntry(): RegistryEntry {
  return (entry ??= JSON.parse(readFileSync(join(packageRoot(), 'server.json'), 'utf8')) as RegistryEntry);
}

/** How callers of this deployment authenticate (HttpIdentity.mode): only the shared token is a header a client fills in. */
export type CallerAuth = 'host' | 'oauth' | 'token' | 'local';

/**
 * The card for the MCP endpoint at `mcpUrl`. The version is package.json's
 * (server.json carries the same; the registry test keeps them equal); the
 * protocol versions are those this server negotiates (initialize for the
 * 2025 era, server/discover for 2026-07-28). No secret is ever in it: the
 * shared-token header is described, not filled in. OAuth deployments declare
 * no header, as MCP clients find the authorization server from the 401 and
 * the protected-resource metadata, and a host app's own sign-in is its own.
 */
export function serverCard(mcpUrl: string, auth: CallerAuth): Record<string, unknown> {
  const { name, title, description, websiteUrl, repository } = registryEntry();
  const remote = {
    type: 'streamable-http',
    url: mcpUrl,
    supportedProtocolVersions: [...MODERN_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS],
    ...(auth === 'token'
      ? {
          headers: [
            {
              name: 'Authorization',
              description: "The deployment's shared bearer token (GSC_HTTP_TOKEN), from its operator.",
              isRequired: true,
              isSecret: true,
              value: 'Bearer {token}',
              variables: { token: { description: 'The shared bearer token.', isRequired: true, isSecret: true } },
            },
          ],
        }
      : {}),
  };
  return {
    $schema: SERVER_CARD_SCHEMA,
    name,
    version: serverVersion(),
    ...(title ? { title } : {}),
    description,
    ...(websiteUrl ? { websiteUrl } : {}),
    ...(repository ? { repository: { url: repository.url, source: repository.source } } : {}),
    remotes: [remote],
  };
}

/**
 * The AI Catalog listing this server's card (discovery.md, "Server Card
 * Entries"): its identifier is domain-anchored from the card's name the way
 * the proposal's example derives it (`com.example/weather` →
 * `urn:air:example.com:mcp:weather`).
 */
export function aiCatalog(cardUrl: string): Record<string, unknown> {
  const [namespace, server] = registryEntry().name.split('/');
  const publisher = namespace.split('.').reverse().join('.');
  return {
    specVersion: '1.0',
    entries: [{ identifier: `urn:air:${publisher}:mcp:${server}`, type: SERVER_CARD_TYPE, url: cardUrl }],
  };
}

/**
 * The public base a card's URLs start from: GSC_PUBLIC_URL (its path included,
 * for a proxy that strips it) when set, else the origin the request came in on
 * (its Host already validated).
 */
export function publicBase(publicUrl: string | undefined, requestOrigin: string): string {
  return (publicUrl ?? requestOrigin).replace(/\/+$/, '');
}
