import { ConfigError } from './config-error.js';
import { parseToolPatterns, type ToolPattern } from './tool-patterns.js';
import { hasInvisible, inert } from '../common/inert-text.js';
import { canonicalPrincipal, checkPrincipal, escapedPrincipal } from '../common/principal-name.js';
import { normalizeProperty, PropertyError } from '../property/property.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';

// GSC_POLICY_FILE (or the embedded module's `policy` option), PRODUCT §8b:
// { "rules": [ { "principals" | "groups", "tools", "deny_tools"?, "sites"?, "annotations"? }, … ] }

/**
 * What a rule's people do with annotations (PRODUCT.md §5e), besides which of the
 * three tools their "tools" allow:
 * - `shared` (the default): they see everyone's shared notes on their properties,
 *   write shared notes, and delete only their own;
 * - `own`: a notebook of their own — they see only the notes they wrote, and what
 *   they write is seen by no one else (ops excepted, through /admin/annotations);
 * - `admin`: as `shared`, and they may delete anyone's shared note on their properties.
 */
export const ANNOTATION_MODES = ['shared', 'own', 'admin'] as const;
export type AnnotationMode = (typeof ANNOTATION_MODES)[number];

export type PrincipalPattern =
  | { readonly kind: 'address'; readonly text: string; readonly address: string }
  | { readonly kind: 'domain'; readonly text: string; readonly domain: string };

export interface PolicyRule {
  /** 1-based, as a person counts the rules in the file. */
  readonly number: number;
  /** `rule 2 ("groups": ["seo"])`: how every message names this rule. */
  readonly label: string;
  readonly principals?: readonly PrincipalPattern[];
  readonly groups?: readonly string[];
  readonly tools: readonly ToolPattern[];
  readonly denyTools: readonly ToolPattern[];
  /** Normalised properties; undefined means the server-wide GSC_ALLOWED_SITES. */
  readonly sites?: readonly string[];
  /** Undefined means `shared`. */
  readonly annotations?: AnnotationMode;
}

export interface Policy {
  /** What to call it in messages: `GSC_POLICY_FILE`, `policy`. */
  readonly source: string;
  readonly rules: readonly PolicyRule[];
}

const RULE_KEYS = ['principals', 'groups', 'tools', 'deny_tools', 'sites', 'annotations'] as const;
const LOCAL_PART = /^[^\s@*"(),:;<>[\]\\]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Validates a policy as strictly as the environment: one ConfigError line naming
 * the source and the rule, for unknown keys, wrong types, empty lists, principal
 * patterns other than an address or `*@domain`, malformed tool patterns and
 * malformed properties. `json` is the file's text or an already-parsed object.
 * Tool names are checked against the registered tools by checkPolicyTools.
 */
export function parsePolicy(json: unknown, source: string): Policy {
  let document = json;
  if (typeof json === 'string') {
    try {
      document = JSON.parse(json);
    } catch (error) {
      throw new ConfigError(
        `${source} is not valid JSON (${inert((error as Error).message, 160)}); write an object such as {"rules": [{"principals": ["alice@corp.example"], "tools": ["essential"]}]}`,
      );
    }
  }
  if (!isPlainObject(document)) {
    throw new ConfigError(
      `${source} must be a JSON object with a "rules" list, such as {"rules": [{"principals": ["alice@corp.example"], "tools": ["essential"]}]}`,
    );
  }
  const unknown = Object.keys(document).filter((key) => key !== 'rules');
  if (unknown.length > 0) {
    throw new ConfigError(`${source} has the unknown key ${quote(unknown[0])}; the only key is "rules"`);
  }
  const { rules } = document;
  if (!Array.isArray(rules)) {
    throw new ConfigError(
      `${source} "rules" must be a list of rules, such as [{"principals": ["alice@corp.example"], "tools": ["essential"]}]`,
    );
  }
  if (rules.length === 0) {
    throw new ConfigError(`${source} "rules" is empty, which would give every caller no tools; add a rule or unset ${source}`);
  }
  return Object.freeze({ source, rules: Object.freeze(rules.map((rule, index) => parseRule(rule, index + 1, source))) });
}

function parseRule(raw: unknown, number: number, source: string): PolicyRule {
  const label = labelOf(raw, number);
  const fail: (what: string) => never = (what) => {
    throw new ConfigError(`${source} ${label}: ${what}`);
  };
  if (!isPlainObject(raw)) {
    fail('a rule must be an object with "principals" or "groups", and "tools"');
  }
  const rule = raw;
  for (const key of Object.keys(rule)) {
    if (!(RULE_KEYS as readonly string[]).includes(key)) {
      fail(`unknown key ${quote(key)}; the keys are ${RULE_KEYS.join(', ')}`);
    }
  }
  const list = (key: string): string[] | undefined => {
    const value = rule[key];
    if (value === undefined) {
      return undefined;
    }
    if (!Array.isArray(value)) {
      fail(`"${key}" must be a list of strings, such as ${EXAMPLES[key]}`);
    }
    const entries = value as unknown[];
    if (entries.length === 0) {
      fail(`"${key}" is empty; remove the key or list at least one entry`);
    }
    entries.forEach((entry, i) => {
      if (typeof entry !== 'string') {
        fail(`"${key}" entry ${i + 1} is ${describe(entry)}, not a string`);
      }
      if (!entry.trim()) {
        fail(`"${key}" entry ${i + 1} is empty`);
      }
    });
    return (entries as string[]).map((entry) => entry.trim());
  };

  const principals = list('principals')?.map((text) => {
    const checked = checkPrincipal(text);
    if (!checked.ok && checked.problem === 'not_normalized') {
      // Shown escaped: the Kelvin-sign Kate must not read as kate in the very line that refuses her.
      fail(
        `"principals" entry "${escapedPrincipal(text, 80)}" contains characters that Unicode normalisation (NFC or NFKC) would change, such as the Kelvin sign or a full-width letter; such a principal is refused at sign-in, so write the address in plain characters, as the identity provider sends it`,
      );
    }
    return (
      parsePrincipalPattern(text) ??
      fail(`"principals" entry ${quote(text)} is neither an e-mail address (alice@corp.example) nor *@ and a domain (*@corp.example)`)
    );
  });
  const groups = list('groups')?.map((name) => {
    if (hasInvisible(name) || name.length > 256) {
      fail(`"groups" entry ${quote(name)} is not a group name`);
    }
    if (name.includes('*')) {
      fail(`"groups" entry ${quote(name)} contains *, but groups match exactly; write the group's name as the token carries it`);
    }
    return name;
  });
  if (!principals && !groups) {
    fail('the rule names no one; add "principals" (addresses or *@domain) or "groups"');
  }

  const patterns = (key: 'tools' | 'deny_tools'): ToolPattern[] | undefined =>
    list(key)?.map((text) => {
      if (hasInvisible(text)) {
        fail(`"${key}" entry ${quote(text)} contains control or invisible characters`);
      }
      if (text.includes(',')) {
        fail(`"${key}" entry ${quote(text)} contains a comma; write one pattern per entry`);
      }
      return parseToolPatterns(`${source} ${label}: "${key}"`, text)![0];
    });
  const tools = patterns('tools');
  if (!tools) {
    fail('"tools" is missing; list the tools this rule allows, e.g. ["essential"] or ["*"]');
  }
  const denyTools = patterns('deny_tools') ?? [];

  const sites = list('sites')?.map((text) => {
    try {
      return normalizeProperty(text);
    } catch (error) {
      if (error instanceof PropertyError) {
        return fail(`"sites" entry: ${error.message}`);
      }
      throw error;
    }
  });

  const annotations = rule.annotations;
  if (annotations !== undefined && !(ANNOTATION_MODES as readonly unknown[]).includes(annotations)) {
    fail(
      `"annotations" is ${describe(annotations)}; write "shared" (the default: everyone's notes), "own" (each person sees only their own) or "admin" (shared, and may delete anyone's)`,
    );
  }

  return Object.freeze({
    number,
    label,
    ...(principals ? { principals: Object.freeze(principals) } : {}),
    ...(groups ? { groups: Object.freeze([...new Set(groups)]) } : {}),
    tools: Object.freeze(tools),
    denyTools: Object.freeze(denyTools),
    ...(sites ? { sites: Object.freeze([...new Set(sites)]) } : {}),
    ...(annotations !== undefined ? { annotations: annotations as AnnotationMode } : {}),
  });
}

/**
 * An exact address, or `*@domain`; undefined for anything else. Both in the
 * canonical spelling every principal is compared in (common/principal-name.ts:
 * as written, ASCII lower-case; a look-alike spelling is no pattern), so a rule
 * matches exactly the callers that are the same principal for sessions,
 * approvals and exports too.
 */
export function parsePrincipalPattern(text: string): PrincipalPattern | undefined {
  const lowered = canonicalPrincipal(text);
  if (lowered === undefined) {
    return undefined;
  }
  const at = lowered.lastIndexOf('@');
  if (at <= 0 || lowered.indexOf('@') !== at) {
    return undefined;
  }
  const local = lowered.slice(0, at);
  const domain = lowered.slice(at + 1);
  if (!DOMAIN.test(domain)) {
    return undefined;
  }
  if (local === '*') {
    return { kind: 'domain', text, domain };
  }
  if (!LOCAL_PART.test(local) || local.length > 64) {
    return undefined;
  }
  return { kind: 'address', text, address: lowered };
}

const EXAMPLES: Record<string, string> = {
  principals: '["alice@corp.example", "*@corp.example"]',
  groups: '["seo"]',
  tools: '["essential", "submit_sitemap"]',
  deny_tools: '["delete_*"]',
  sites: '["sc-domain:corp.example"]',
};

// `rule 2 ("groups": ["seo"])`: the rule's number and the first thing a person
// would search the file for. Taken from unvalidated input, so made inert and short.
function labelOf(raw: unknown, number: number): string {
  if (!isPlainObject(raw)) {
    return `rule ${number}`;
  }
  for (const key of ['principals', 'groups'] as const) {
    const value = raw[key];
    if (Array.isArray(value) && value.length > 0 && typeof value[0] === 'string') {
      const more = value.length > 1 ? ', …' : '';
      const first = value[0];
      const lookAlike = first.normalize('NFC') !== first || first.normalize('NFKC') !== first;
      const shown = lookAlike ? `"${escapedPrincipal(first, 58)}"` : inert(JSON.stringify(first), 60);
      return `rule ${number} ("${key}": [${shown}${more}])`;
    }
  }
  return `rule ${number}`;
}

function quote(value: string): string {
  return inert(JSON.stringify(value), 80);
}

function describe(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'a list';
  }
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${inert(JSON.stringify(value) ?? typeof value, 40)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A rule only narrows GSC_ALLOWED_SITES, so a "sites" entry the server-wide list
 * does not cover is a start-up error, as GSC_SITE_URL outside the list is: left
 * in, it would read as access the rule grants while every call to it is refused.
 * An entry inside a server-wide one is fine (server sc-domain:corp.example, rule
 * https://blog.corp.example/).
 */
export function checkPolicySites(policy: Policy, allowedSites: readonly string[] | undefined): void {
  if (!allowedSites) {
    return;
  }
  for (const rule of policy.rules) {
    for (const site of rule.sites ?? []) {
      if (!isPropertyAllowed(site, allowedSites)) {
        throw new ConfigError(
          `${policy.source} ${rule.label}: "sites" entry ${site} is outside GSC_ALLOWED_SITES (${allowedSites.join(', ')}); a rule only narrows the server-wide list — remove the entry or widen GSC_ALLOWED_SITES`,
        );
      }
    }
  }
}
