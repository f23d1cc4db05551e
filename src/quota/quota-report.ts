import * as z from 'zod';
import { inAbout } from './quota-windows.js';
import type { QuotaSnapshot, QuotaVerdict, WindowUse } from './quota-types.js';

// The ledger's numbers as results show them: snake_case facts for
// structuredContent and the sentences the text carries. Every sentence says
// that the count is this server's own, a lower bound of Google's.

const WindowOut = z.object({ used: z.number().int(), limit: z.number().int(), remaining: z.number().int(), resets_at: z.string() });

export const QuotaRemainingOut = z
  .object({
    property: z.string().optional(),
    project: z.string().optional(),
    minute: WindowOut.optional(),
    day: WindowOut,
    google_refused_at: z.string().optional().describe('Google refused earlier today; remaining is then 0.'),
    lower_bound: z.literal(true),
  })
  .describe("This server's own count; other clients of the property or project spend the same quota.");

export type QuotaRemaining = z.infer<typeof QuotaRemainingOut>;

export const LOWER_BOUND =
  'These counts are this server’s own (every process sharing its state store counts together); other clients of the same property or project spend the same quota, so Google’s count can be higher.';

/** The structured quota_remaining of a result. */
export function quotaRemaining(snapshot: QuotaSnapshot, projectLabel?: string): QuotaRemaining {
  const refused = snapshot.refusedToday?.likelyLimit === 'day' ? snapshot.refusedToday : undefined;
  const out = (use: WindowUse, zero = false) => ({
    used: use.used,
    limit: use.limit,
    remaining: zero ? 0 : use.remaining,
    resets_at: use.resetsAt.toISOString(),
  });
  return {
    ...(snapshot.scope.kind === 'inspection' ? { property: snapshot.scope.property } : { project: projectLabel ?? snapshot.scope.project }),
    ...(snapshot.minute ? { minute: out(snapshot.minute) } : {}),
    day: out(snapshot.day, refused !== undefined),
    ...(refused ? { google_refused_at: refused.at.toISOString() } : {}),
    lower_bound: true,
  };
}

/** One or two sentences: what is left today (and this minute), by this server's own count. */
export function quotaRemainingLine(snapshot: QuotaSnapshot | undefined, projectLabel?: string): string {
  if (!snapshot) {
    return 'Quota left: unknown — the state store holding the quota ledger cannot be reached, so this call was not counted.';
  }
  const { day, minute, refusedToday, now, scope } = snapshot;
  const resets = `the day resets at midnight Pacific Time, ${day.resetsAt.toISOString()}, ${inAbout(day.resetsAt, now)}`;
  const what =
    scope.kind === 'inspection' ? `URL inspections of ${scope.property}` : `Indexing API publishes for ${projectLabel ?? scope.project}`;
  const others = `other clients of the ${scope.kind === 'inspection' ? 'property' : 'project'} spend the same quota`;
  const granted = scope.kind === 'publish' ? ' (a project Google granted more than the default has more)' : '';
  if (refusedToday?.likelyLimit === 'day') {
    return (
      `${what} left today: none expected — Google refused one at ${refusedToday.at.toISOString()}, most likely for the daily limit, ` +
      `although this server counted only ${figure(day.used)} of ${figure(day.limit)} (${others}); ${resets}.`
    );
  }
  const counts = `${figure(day.remaining)} of ${scope.kind === 'publish' ? 'the default ' : ''}${figure(day.limit)} today${minute ? ` and ${figure(minute.remaining)} of ${figure(minute.limit)} this minute` : ''}`;
  return `${what} left by this server's own count: ${counts}${granted} (${resets}); ${others}, so Google may allow fewer.`;
}

/**
 * For a refusal whose body does not say which limit: both limits with their
 * reset times, this server's own counts, and which one is the likely one and why.
 */
export function refusalExplanation(verdict: QuotaVerdict, options: { resets?: boolean } = {}): string {
  const { snapshot, basis } = verdict;
  const { day, minute, now, scope } = snapshot;
  const midnight = `the daily limit resets at midnight Pacific Time (${day.resetsAt.toISOString()}, ${inAbout(day.resetsAt, now)})`;
  if (scope.kind === 'publish') {
    const counted = `This server counted ${day.used} publishes for this project today (a lower bound: other clients of the project count too).`;
    const likely =
      basis === 'own_day_count' ? `That fills the default daily limit of ${day.limit}.` : 'Most likely it is the daily publish limit.';
    if (options.resets === false) {
      return `${counted} ${likely}`;
    }
    return `${counted} ${likely} ${capitalise(midnight)}. If it was the limit of 380 Indexing API requests per minute instead, retry in a minute.`;
  }
  const counted = `This server counted ${minute?.used ?? 0} inspections of ${scope.property} in the current minute and ${day.used} today (lower bounds: other clients of the property count too).`;
  const why: Record<typeof basis, string> = {
    own_day_count: `That alone fills the daily limit of ${figure(day.limit)}, so it is the daily limit.`,
    own_minute_count: `That nearly fills the per-minute limit of ${minute?.limit ?? 600}, so it is most likely the per-minute limit.`,
    refused_earlier: `Google refused already earlier today (${snapshot.refusedToday?.at.toISOString() ?? 'in an earlier minute'}), in an earlier minute, so it is most likely the daily limit.`,
    rates: minute
      ? `For others to reach the per-minute limit of ${minute.limit} they would have to inspect ${Math.round(minute.limit / 60)} URLs a second, which uses up the daily ${figure(day.limit)} within ${Math.ceil(day.limit / minute.limit)} minutes, so it is most likely the daily limit.`
      : 'It is most likely the daily limit.',
  };
  if (options.resets === false) {
    return `${counted} ${why[basis]}`;
  }
  const minuteReset = minute
    ? `If it was the per-minute limit (${minute.limit}), it clears by ${minute.resetsAt.toISOString()}, within a minute; `
    : '';
  return `${counted} ${why[basis]} ${minuteReset}${minuteReset ? midnight : capitalise(midnight)}.`;
}

/** 2000 → "2 000", as the limits are written elsewhere. */
export function figure(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
