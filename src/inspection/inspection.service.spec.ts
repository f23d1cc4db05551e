import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { ledgerKit, type LedgerKit } from '../../test/support/quota-ledger-kit.js';
import { StateUnavailableError } from '../state/state-store.js';
import { type BatchItem, InspectionService } from './inspection.service.js';

const PROPERTY = 'https://www.example.com/';
const page = (i: number) => `${PROPERTY}p${i}`;
const scope = { kind: 'inspection', property: PROPERTY } as const;
const states = (items: BatchItem[]) => items.map((o) => (o.state === 'not_inspected' ? `not:${o.reason}` : o.state));

let kit: LedgerKit;
afterEach(async () => {
  await kit?.dispose();
});

describe('InspectionService', () => {
  it('inspect sends the URL, the property and the language, returns the inspectionResult, and counts it', async () => {
    kit = ledgerKit();
    const google = new FakeGoogle().on('urlInspection.index.inspect', { inspectionResult: { indexStatusResult: { verdict: 'PASS' } } });
    expect(await new InspectionService(google.service, kit.ledger, kit.clock).inspect(PROPERTY, page(1), 'fr')).toEqual({
      result: { indexStatusResult: { verdict: 'PASS' } },
      counted: true,
    });
    expect(google.calls[0].args).toEqual([{ requestBody: { inspectionUrl: page(1), siteUrl: PROPERTY, languageCode: 'fr' } }]);
    expect((await kit.ledger.snapshot(scope))!.day.used).toBe(1);
  });

  it('inspect still sends when the state store cannot be reached, and says it was not counted', async () => {
    kit = ledgerKit();
    const google = new FakeGoogle().on('urlInspection.index.inspect', { inspectionResult: { indexStatusResult: { verdict: 'PASS' } } });
    const increment = jest
      .spyOn(kit.store, 'increment')
      .mockRejectedValue(new StateUnavailableError('redis://127.0.0.1:6379', 'connect ECONNREFUSED 127.0.0.1:6379'));
    const outcome = await new InspectionService(google.service, kit.ledger, kit.clock).inspect(PROPERTY, page(1));
    increment.mockRestore();
    expect(outcome).toEqual({ result: { indexStatusResult: { verdict: 'PASS' } }, counted: false });
    expect(google.calls).toHaveLength(1);
    expect((await kit.ledger.snapshot(scope))!.day.used).toBe(0);
  });

  it('inspect refuses without sending once this server alone has used the day, and a failure is not counted', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z', { inspectionPerDay: 1 });
    const google = new FakeGoogle().on('urlInspection.index.inspect', () => {
      throw googleError('invalid', { status: 400 });
    });
    const service = new InspectionService(google.service, kit.ledger, kit.clock);
    await expect(service.inspect(PROPERTY, page(1))).rejects.toThrow(/refused/);
    expect((await kit.ledger.snapshot(scope))!.day.used).toBe(0);
    google.on('urlInspection.index.inspect', { inspectionResult: {} });
    await service.inspect(PROPERTY, page(2));
    await expect(service.inspect(PROPERTY, page(3))).rejects.toThrow(
      /^Did not inspect https:\/\/www\.example\.com\/p3: this server has already sent 1 URL inspections of https:\/\/www\.example\.com\/ today .* Nothing was sent to Google\. The count resets at midnight Pacific Time \(2026-03-03T08:00:00\.000Z, in about 14 hours\)\.$/,
    );
    expect(google.calls).toHaveLength(2);
  });

  it('inspect tells a quota refusal that does not say which limit with this server’s counts and the likely limit', async () => {
    kit = ledgerKit();
    const google = new FakeGoogle().fail(
      'urlInspection.index.inspect',
      googleError('quota', { status: 429, quota: {} }, "Google's quota is exhausted."),
    );
    const error = (await new InspectionService(google.service, kit.ledger, kit.clock)
      .inspect(PROPERTY, page(1))
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^Google's daily quota is most likely exhausted, so it refused to inspect https:\/\/www\.example\.com\/p1 in https:\/\/www\.example\.com\/: ".*"\. Nothing was changed\. Google's answer does not say which limit was hit\. URL Inspection allows 600 inspections per minute and 2 000 per day per property\. This server counted 0 inspections of https:\/\/www\.example\.com\/ in the current minute and 0 today/,
    );
    expect(error.message).toMatch(
      /which uses up the daily 2 000 within 4 minutes, so it is most likely the daily limit\. If it was the per-minute limit \(600\), it clears by \S+, within a minute; the daily limit resets at midnight Pacific Time/,
    );
    expect((await kit.ledger.snapshot(scope))!.refusedToday?.likelyLimit).toBe('day');
  });

  it('inspectMany sends within the daily budget only and lists the rest', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z', { inspectionPerDay: 3 });
    const google = new FakeGoogle().on('urlInspection.index.inspect', { inspectionResult: {} });
    const batch = await new InspectionService(google.service, kit.ledger, kit.clock).inspectMany(PROPERTY, [0, 1, 2, 3, 4].map(page), {
      concurrency: 1,
    });
    expect(states(batch.items)).toEqual(['done', 'done', 'done', 'not:daily_budget', 'not:daily_budget']);
    expect(batch.stop).toBe('daily_budget');
    expect(google.calls).toHaveLength(3);
    expect(batch.quota!.day).toMatchObject({ used: 3, remaining: 0 });
  });

  it('inspectMany waits once after a quota refusal, probes, and stops when the probe is refused too', async () => {
    kit = ledgerKit();
    let n = 0;
    const google = new FakeGoogle().on('urlInspection.index.inspect', () => {
      if (++n > 2) {
        throw googleError('quota', { status: 429, quota: {}, retryAfterSeconds: 0 });
      }
      return { inspectionResult: {} };
    });
    const batch = await new InspectionService(google.service, kit.ledger, kit.clock).inspectMany(PROPERTY, [0, 1, 2, 3, 4, 5].map(page), {
      concurrency: 1,
    });
    expect(states(batch.items)).toEqual(['done', 'done', 'not:quota', 'not:quota', 'not:quota', 'not:quota']);
    expect(google.calls).toHaveLength(4); // two answered, one refused, one probe refused
    expect(google.calls.every((c) => c.options.retryQuota === false)).toBe(true);
    expect(batch.verdict).toMatchObject({ likely: 'day', basis: 'rates' });
    expect(batch.quota!.day.used).toBe(2);
    expect(batch.quota!.refusedToday?.likelyLimit).toBe('day');

    // The next batch knows: it starts with a single probe and no wait.
    const next = await new InspectionService(google.service, kit.ledger, kit.clock).inspectMany(PROPERTY, [6, 7, 8].map(page), {
      concurrency: 3,
    });
    expect(states(next.items)).toEqual(['not:quota', 'not:quota', 'not:quota']);
    expect(google.calls).toHaveLength(5);
    expect(next.waitedMs).toBe(0);
  });

  it('inspectMany carries on when the probe gets through, and clears the refusal', async () => {
    kit = ledgerKit();
    await kit.ledger.noteRefusal(scope, 'day');
    const google = new FakeGoogle().on('urlInspection.index.inspect', { inspectionResult: {} });
    const batch = await new InspectionService(google.service, kit.ledger, kit.clock).inspectMany(PROPERTY, [0, 1, 2].map(page), {
      concurrency: 3,
    });
    expect(states(batch.items)).toEqual(['done', 'done', 'done']);
    expect(batch.stop).toBeUndefined();
    expect(batch.quota!.refusedToday).toBeUndefined();
  });

  it('inspectMany starts nothing once cancelled; what was sent is kept and counted', async () => {
    kit = ledgerKit();
    const controller = new AbortController();
    const google = new FakeGoogle().on('urlInspection.index.inspect', () => ({ inspectionResult: {} }));
    const settled: string[] = [];
    const batch = await new InspectionService(google.service, kit.ledger, kit.clock).inspectMany(PROPERTY, [0, 1, 2, 3, 4].map(page), {
      concurrency: 1,
      signal: controller.signal,
      onSettled: (url, _item, count) => {
        settled.push(url);
        if (count === 2) {
          controller.abort();
        }
      },
    });
    expect(states(batch.items)).toEqual(['done', 'done', 'not:cancelled', 'not:cancelled', 'not:cancelled']);
    expect(batch.stop).toBe('cancelled');
    expect(settled).toEqual([page(0), page(1)]);
    expect(google.calls).toHaveLength(2);
    expect(batch.quota!.day.used).toBe(2);
  });

  it('a failure other than quota belongs to its URL', async () => {
    kit = ledgerKit();
    const google = new FakeGoogle().on('urlInspection.index.inspect', ({ requestBody }: { requestBody: { inspectionUrl: string } }) => {
      if (requestBody.inspectionUrl === page(1)) {
        throw googleError('invalid', { status: 400 });
      }
      return { inspectionResult: {} };
    });
    const batch = await new InspectionService(google.service, kit.ledger, kit.clock).inspectMany(PROPERTY, [0, 1, 2].map(page), {
      concurrency: 2,
    });
    expect(states(batch.items)).toEqual(['done', 'failed', 'done']);
    expect(batch.quota!.day.used).toBe(2);
  });
});
