// Google's quota and "API not enabled" answers, one builder per shape seen in
// production. Sources for each shape are in README.md ("Modelled behaviours");
// where a detail could not be confirmed it is listed under "Not confirmed".
//
// The rule the emulator follows: a quota answer is the shape Google sends for
// that API, and never more specific than Google is. URL Inspection's 429 says
// only "Quota exceeded for <property>." whichever limit was hit.

import type { ErrorStyle } from './emulator-errors.js';
import { hashString } from './emulator-random.js';
import type { FaultPreset } from './emulator-types.js';

export type GoogleErrorBody = { error: Record<string, unknown> };

/** The display names Google puts in "… has not been used in project N" messages. */
export const SERVICE_TITLES: Readonly<Record<string, string>> = {
  'searchconsole.googleapis.com': 'Google Search Console API',
  'indexing.googleapis.com': 'Web Search Indexing API',
  'siteverification.googleapis.com': 'Google Site Verification API',
};

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const HELP = 'type.googleapis.com/google.rpc.Help';
const LOCALIZED = 'type.googleapis.com/google.rpc.LocalizedMessage';
const QUOTA_HELP_URL = 'https://cloud.google.com/docs/quotas/help/request_increase';

/**
 * Google names projects by number in these messages. The emulator's credentials
 * carry a project id (from the service-account e-mail), so the number is a
 * stable 12-digit hash of it; an id that is already a number is kept.
 */
export function projectNumberOf(project: string): string {
  if (/^\d+$/.test(project)) {
    return project;
  }
  return String(100000000000 + (hashString(project) % 900000) * 1000000 + (hashString(`${project}#`) % 1000000));
}

export function activationUrl(service: string, projectNumber: string): string {
  return `https://console.developers.google.com/apis/api/${service}/overview?project=${projectNumber}`;
}

function titleOf(service: string): string {
  return SERVICE_TITLES[service] ?? service;
}

function disabledMessage(service: string, projectNumber: string): string {
  return (
    `${titleOf(service)} has not been used in project ${projectNumber} before or it is disabled. ` +
    `Enable it by visiting ${activationUrl(service, projectNumber)} then retry. ` +
    'If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.'
  );
}

/** 403 PERMISSION_DENIED for an API not enabled in the caller's project (the current, ErrorInfo-carrying form). */
export function serviceDisabledBody(style: ErrorStyle, service: string, projectNumber: string): GoogleErrorBody {
  const message = disabledMessage(service, projectNumber);
  const url = activationUrl(service, projectNumber);
  const error: Record<string, unknown> = { code: 403, message };
  if (style === 'classic') {
    error.errors = [
      { message, domain: 'usageLimits', reason: 'accessNotConfigured', extendedHelp: 'https://console.developers.google.com' },
    ];
  }
  error.status = 'PERMISSION_DENIED';
  error.details = [
    {
      '@type': ERROR_INFO,
      reason: 'SERVICE_DISABLED',
      domain: 'googleapis.com',
      metadata: {
        activationUrl: url,
        consumer: `projects/${projectNumber}`,
        containerInfo: projectNumber,
        service,
        serviceTitle: titleOf(service),
      },
    },
    { '@type': LOCALIZED, locale: 'en-US', message },
    { '@type': HELP, links: [{ description: 'Google developers console API activation', url }] },
  ];
  return { error };
}

/**
 * The older "Access Not Configured" form: errors[] with usageLimits /
 * accessNotConfigured, no status and no details. One Platform surfaces have no
 * errors[] array, so there it is the SERVICE_DISABLED form.
 */
export function accessNotConfiguredBody(style: ErrorStyle, service: string, projectNumber: string): GoogleErrorBody {
  if (style === 'rpc') {
    return serviceDisabledBody(style, service, projectNumber);
  }
  const message = `Access Not Configured. ${disabledMessage(service, projectNumber)}`;
  return {
    error: {
      code: 403,
      message,
      errors: [{ message, domain: 'usageLimits', reason: 'accessNotConfigured', extendedHelp: activationUrl(service, projectNumber) }],
    },
  };
}

interface RateLimitInfo {
  service: string;
  projectNumber: string;
  /** Display name of the metric, e.g. 'Publish requests'. */
  metricName: string;
  /** Display name of the limit, e.g. 'Publish requests per day'. */
  limitName: string;
  quotaMetric: string;
  quotaLimit: string;
  limitValue: number;
}

function rateLimitDetails(info: RateLimitInfo): unknown[] {
  return [
    {
      '@type': ERROR_INFO,
      reason: 'RATE_LIMIT_EXCEEDED',
      domain: 'googleapis.com',
      metadata: {
        service: info.service,
        consumer: `projects/${info.projectNumber}`,
        quota_metric: info.quotaMetric,
        quota_limit: info.quotaLimit,
        quota_limit_value: String(info.limitValue),
        quota_location: 'global',
      },
    },
    { '@type': HELP, links: [{ description: 'Request a higher quota limit.', url: QUOTA_HELP_URL }] },
  ];
}

function rateLimitMessage(info: RateLimitInfo): string {
  return (
    `Quota exceeded for quota metric '${info.metricName}' and limit '${info.limitName}' of service ` +
    `'${info.service}' for consumer 'project_number:${info.projectNumber}'.`
  );
}

/** URL Inspection's 429, identical for the per-minute, per-day and per-project limits. */
export function inspectionQuotaBody(siteUrl: string): GoogleErrorBody {
  return { error: { code: 429, message: `Quota exceeded for ${siteUrl}.`, status: 'RESOURCE_EXHAUSTED' } };
}

/** The /webmasters/v3 (and Site Verification) 429: the same for the QPM limits and the load limits. */
export function legacyRateLimitBody(): GoogleErrorBody {
  const message = 'Rate Limit Exceeded';
  return {
    error: { code: 429, message, errors: [{ message, domain: 'usageLimits', reason: 'rateLimitExceeded' }], status: 'RESOURCE_EXHAUSTED' },
  };
}

export type IndexingLimit = 'publish' | 'metadata' | 'requests';

const INDEXING_LIMITS: Record<IndexingLimit, Omit<RateLimitInfo, 'service' | 'projectNumber' | 'limitValue'>> = {
  publish: {
    metricName: 'Publish requests',
    limitName: 'Publish requests per day',
    quotaMetric: 'indexing.googleapis.com/v3_publish_requests',
    quotaLimit: 'DefaultPublishRequestsPerDayPerProject',
  },
  metadata: {
    metricName: 'Metadata requests',
    limitName: 'Metadata requests per minute',
    quotaMetric: 'indexing.googleapis.com/v3_metadata_requests',
    quotaLimit: 'DefaultMetadataRequestsPerMinutePerProject',
  },
  requests: {
    metricName: 'Requests',
    limitName: 'Requests per minute',
    quotaMetric: 'indexing.googleapis.com/v3_requests',
    quotaLimit: 'DefaultRequestsPerMinutePerProject',
  },
};

/** The Indexing API's 429: a Service Infrastructure quota, so it names the limit and carries ErrorInfo. */
export function indexingQuotaBody(limit: IndexingLimit, projectNumber: string, limitValue: number): GoogleErrorBody {
  const info: RateLimitInfo = { ...INDEXING_LIMITS[limit], service: 'indexing.googleapis.com', projectNumber, limitValue };
  return { error: { code: 429, message: rateLimitMessage(info), status: 'RESOURCE_EXHAUSTED', details: rateLimitDetails(info) } };
}

interface UsageLimitInput {
  style: ErrorStyle;
  service: string;
  projectNumber: string;
}

function legacy403(input: UsageLimitInput, reason: string, message: string, extendedHelp?: string): GoogleErrorBody {
  if (input.style === 'rpc') {
    return { error: { code: 403, message, status: 'PERMISSION_DENIED' } };
  }
  return {
    error: { code: 403, message, errors: [{ message, domain: 'usageLimits', reason, ...(extendedHelp ? { extendedHelp } : {}) }] },
  };
}

/** 403 answers that are quota, not permission (usageLimits reasons). */
export function usageLimit403(
  preset: 'quota_exceeded' | 'daily_limit_exceeded' | 'rate_limit_exceeded' | 'user_rate_limit_exceeded',
  input: UsageLimitInput,
): GoogleErrorBody {
  switch (preset) {
    case 'quota_exceeded':
      return legacy403(input, 'quotaExceeded', 'Quota exceeded');
    case 'daily_limit_exceeded': {
      const quotas = `https://console.developers.google.com/apis/api/${input.service}/quotas?project=${input.projectNumber}`;
      const message =
        'Daily Limit Exceeded. The quota will be reset at midnight Pacific Time (PT). ' +
        `You may monitor your quota usage and adjust limits in the API Console: ${quotas}`;
      return legacy403(input, 'dailyLimitExceeded', message, quotas);
    }
    case 'user_rate_limit_exceeded':
      return legacy403(input, 'userRateLimitExceeded', 'User Rate Limit Exceeded');
    case 'rate_limit_exceeded': {
      // The Service Infrastructure form some APIs answer with 403 rather than 429.
      const info: RateLimitInfo = {
        service: input.service,
        projectNumber: input.projectNumber,
        metricName: 'Queries',
        limitName: 'Queries per minute per user',
        quotaMetric: `${input.service}/default`,
        quotaLimit: 'defaultPerMinutePerUser',
        limitValue: 1200,
      };
      const message = rateLimitMessage(info);
      const error: Record<string, unknown> = { code: 403, message };
      if (input.style === 'classic') {
        error.errors = [{ message, domain: 'usageLimits', reason: 'rateLimitExceeded' }];
      }
      error.status = 'PERMISSION_DENIED';
      error.details = rateLimitDetails(info);
      return { error };
    }
  }
}

/** The body of a 403 preset, or undefined for presets that depend on the route (resource_exhausted). */
export function presetBody(preset: FaultPreset, input: UsageLimitInput): GoogleErrorBody | undefined {
  switch (preset) {
    case 'service_disabled':
      return serviceDisabledBody(input.style, input.service, input.projectNumber);
    case 'access_not_configured':
      return accessNotConfiguredBody(input.style, input.service, input.projectNumber);
    case 'resource_exhausted':
      return undefined;
    default:
      return usageLimit403(preset, input);
  }
}
