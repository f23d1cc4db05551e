import { inert } from '../common/inert-text.js';

// The Google methods this server calls, with what GoogleService needs to know
// about each: whether it changes something, whether sending it twice is
// harmless, what a 200 must carry to count as an answer, and Google's published
// limits (briefs/google.md §3), which a quota sentence quotes because Google's
// quota errors do not say which limit was hit.

export type GoogleApi = 'searchconsole' | 'indexing' | 'siteverification';

export interface MethodSpec {
  readonly api: GoogleApi;
  /** The path of the client method, e.g. searchconsole.sites.get (checked by the shared fake). */
  readonly client: string;
  /** The call changes something at Google. */
  readonly write: boolean;
  /**
   * Sending it again after a failure is harmless: reads, PUT/DELETE and the
   * ownership writes that set a state. False for Indexing publish, which counts
   * against a 200-a-day quota and is never sent twice by us.
   */
  readonly resend: boolean;
  /** What the 200 body must be; undefined when nothing is read from it (empty-bodied writes). */
  readonly answer?: AnswerShape;
  /** Google's published limits for this method, as a sentence without a full stop or reset times. */
  readonly limits: string;
}

export interface AnswerShape {
  /** Fields that must be non-empty strings or objects. */
  readonly required?: readonly string[];
  /** Repeated fields: Google omits them when empty, but when present they are lists. */
  readonly lists?: readonly string[];
}

const OTHER_LIMITS = 'Search Console allows 20 requests per second and 200 per minute per user for sites and sitemaps';
const SV_LIMITS = 'Google publishes no figure for the Site Verification API, only that its limit is daily';

export const GOOGLE_METHODS = {
  'sites.list': {
    api: 'searchconsole',
    client: 'searchconsole.sites.list',
    write: false,
    resend: true,
    answer: { lists: ['siteEntry'] },
    limits: OTHER_LIMITS,
  },
  'sites.get': {
    api: 'searchconsole',
    client: 'searchconsole.sites.get',
    write: false,
    resend: true,
    answer: { required: ['siteUrl'] },
    limits: OTHER_LIMITS,
  },
  'sites.add': { api: 'searchconsole', client: 'searchconsole.sites.add', write: true, resend: true, limits: OTHER_LIMITS },
  'sites.delete': { api: 'searchconsole', client: 'searchconsole.sites.delete', write: true, resend: true, limits: OTHER_LIMITS },
  'sitemaps.list': {
    api: 'searchconsole',
    client: 'searchconsole.sitemaps.list',
    write: false,
    resend: true,
    answer: { lists: ['sitemap'] },
    limits: OTHER_LIMITS,
  },
  'sitemaps.get': {
    api: 'searchconsole',
    client: 'searchconsole.sitemaps.get',
    write: false,
    resend: true,
    answer: { required: ['path'] },
    limits: OTHER_LIMITS,
  },
  'sitemaps.submit': { api: 'searchconsole', client: 'searchconsole.sitemaps.submit', write: true, resend: true, limits: OTHER_LIMITS },
  'sitemaps.delete': { api: 'searchconsole', client: 'searchconsole.sitemaps.delete', write: true, resend: true, limits: OTHER_LIMITS },
  'searchanalytics.query': {
    api: 'searchconsole',
    client: 'searchconsole.searchanalytics.query',
    write: false,
    resend: true,
    answer: { lists: ['rows'] },
    limits:
      'Search Analytics allows 1 200 queries per minute per property and per user, plus a load quota measured over 10 minutes and over a day (grouping or filtering by page and query costs most)',
  },
  'urlInspection.index.inspect': {
    api: 'searchconsole',
    client: 'searchconsole.urlInspection.index.inspect',
    write: false,
    resend: true,
    answer: { required: ['inspectionResult'] },
    limits: 'URL Inspection allows 600 inspections per minute and 2 000 per day per property',
  },
  'urlNotifications.publish': {
    api: 'indexing',
    client: 'indexing.urlNotifications.publish',
    write: true,
    resend: false,
    answer: {},
    limits: 'The Indexing API allows 200 publish requests (URL_UPDATED and URL_DELETED together) per day per Google Cloud project',
  },
  'urlNotifications.getMetadata': {
    api: 'indexing',
    client: 'indexing.urlNotifications.getMetadata',
    write: false,
    resend: true,
    answer: {},
    limits: 'The Indexing API allows 180 notification-history reads and 380 requests in all per minute per Google Cloud project',
  },
  'webResource.getToken': {
    api: 'siteverification',
    client: 'siteVerification.getToken',
    write: false,
    resend: true,
    answer: {},
    limits: SV_LIMITS,
  },
  'webResource.insert': {
    api: 'siteverification',
    client: 'siteVerification.insert',
    write: true,
    resend: true,
    answer: { required: ['id'] },
    limits: SV_LIMITS,
  },
  'webResource.list': {
    api: 'siteverification',
    client: 'siteVerification.list',
    write: false,
    resend: true,
    answer: { lists: ['items'] },
    limits: SV_LIMITS,
  },
  'webResource.get': {
    api: 'siteverification',
    client: 'siteVerification.get',
    write: false,
    resend: true,
    answer: { required: ['id'] },
    limits: SV_LIMITS,
  },
  'webResource.update': {
    api: 'siteverification',
    client: 'siteVerification.update',
    write: true,
    resend: true,
    answer: { required: ['id'] },
    limits: SV_LIMITS,
  },
  'webResource.patch': {
    api: 'siteverification',
    client: 'siteVerification.patch',
    write: true,
    resend: true,
    answer: { required: ['id'] },
    limits: SV_LIMITS,
  },
  'webResource.delete': { api: 'siteverification', client: 'siteVerification.delete', write: true, resend: true, limits: SV_LIMITS },
} as const satisfies Record<string, MethodSpec>;

export type GoogleMethod = keyof typeof GOOGLE_METHODS;

export function methodSpec(method: GoogleMethod): MethodSpec {
  return GOOGLE_METHODS[method];
}

/** Display names and hosts of the APIs, for sentences. */
export const API_NAMES: Record<GoogleApi, { readonly title: string; readonly service: string }> = {
  searchconsole: { title: 'Google Search Console API', service: 'searchconsole.googleapis.com' },
  indexing: { title: 'Web Search Indexing API', service: 'indexing.googleapis.com' },
  siteverification: { title: 'Google Site Verification API', service: 'siteverification.googleapis.com' },
};

/**
 * What is wrong with a 200 body, or undefined when it is the answer the method
 * returns. gaxios hands over whatever came: a string for truncated JSON, HTML
 * or an empty body, and any JSON value (an array, null) as parsed.
 */
export function answerProblem(method: GoogleMethod, data: unknown): string | undefined {
  const shape: AnswerShape | undefined = methodSpec(method).answer;
  if (!shape) {
    return undefined;
  }
  if (data === undefined || data === '') {
    return 'an empty body';
  }
  if (typeof data === 'string') {
    const text = data.trim();
    if (text === '') {
      return 'an empty body';
    }
    if (text.startsWith('<')) {
      return `an HTML page (${snippet(text)})`;
    }
    if (/^[[{"]/.test(text)) {
      return `truncated or malformed JSON (${snippet(text)})`;
    }
    return `plain text (${snippet(text)})`;
  }
  if (data === null) {
    return 'JSON null';
  }
  if (Array.isArray(data)) {
    return 'a JSON array';
  }
  if (typeof data !== 'object') {
    return `a JSON ${typeof data} (${snippet(JSON.stringify(data) ?? typeof data)})`;
  }
  const body = data as Record<string, unknown>;
  for (const field of shape.required ?? []) {
    const value = body[field];
    if (value === undefined || value === null || value === '' || (typeof value !== 'string' && typeof value !== 'object')) {
      return `a JSON object without ${field}`;
    }
  }
  for (const field of shape.lists ?? []) {
    if (body[field] !== undefined && body[field] !== null && !Array.isArray(body[field])) {
      return `a JSON object whose ${field} is not a list`;
    }
  }
  return undefined;
}

function snippet(text: string): string {
  return `"${inert(text.replace(/\s+/g, ' '), 60)}"`;
}
