import { describe, expect, it } from '@jest/globals';
import { type Checks, type Phase, replicaFaultRun, SHORT } from '../bench/replicas.mjs';

// The short version of `npm run bench -- replicas` (issue 21): three built
// server binaries on one real redis-server behind a round-robin proxy (sticky
// for 2025-11-25 sessions), v1 clients answering pushed dialogs and v2 clients
// on the two-call token, reads and delete_sitemap throughout; one replica
// SIGKILLed mid-approval and restarted, then Redis stopped for two seconds.
// The emulator's request log is the witness of what reached Google. Figures are
// printed, never asserted.

describe('three replicas on one Redis, under load, through a replica crash and a Redis stop', () => {
  let phases: Phase[];
  let checks: Checks;

  it('runs every phase, with calls answered in each', async () => {
    ({ phases, checks } = await replicaFaultRun(SHORT));
    process.stderr.write(
      phases
        .map(
          (p) =>
            `${p.name}: ${p.calls} calls in ${p.elapsed.toFixed(1)} s, errors ${JSON.stringify(p.errors)}${p.note ? `; ${p.note}` : ''}`,
        )
        .join('\n') + '\n',
    );
    expect(phases.map((p) => p.name)).toEqual(['steady', 'replica killed and restarted', 'redis stopped', 'recovered']);
    for (const phase of phases) {
      expect([phase.name, phase.calls > 0]).toEqual([phase.name, true]);
    }
    // The replica did die with calls in flight, so the run did test something.
    expect(phases[1].note).toMatch(/^SIGKILL with [1-9]/);
  }, 90_000);

  it('every call got an answer or an error that says what failed', () => {
    expect(checks.unanswered).toBe(0);
  });

  it('no sitemap was deleted twice, and none without an approval (the emulator log is the witness)', () => {
    expect(checks.deletes).toBeGreaterThan(0);
    expect(checks.deletedTwice).toEqual([]);
    expect(checks.deletedWithoutApproval).toEqual([]);
  });

  it('every token that executed is refused when replayed, whichever replica gets it', () => {
    expect(checks.replays).toBeGreaterThan(0);
    expect(checks.replaysExecuted).toBe(0);
  });

  it('the quota ledger counted the inspections Google answered, after every phase, off by no more than the calls cut by the SIGKILL', () => {
    // The ledger counts before it sends, so only an inspect_url in flight on the killed replica may be counted and never sent.
    for (const phase of phases) {
      const { inspectionsCounted, inspectionsSent } = phase.books;
      expect([phase.name, inspectionsCounted! >= inspectionsSent]).toEqual([phase.name, true]);
      expect([phase.name, inspectionsCounted! - inspectionsSent <= phase.inspectionsCut]).toEqual([phase.name, true]);
    }
    // Before the kill nothing was cut: the books equal Google's log exactly.
    expect(phases[0].inspectionsCut).toBe(0);
    expect(phases[0].books.inspectionsCounted).toBe(phases[0].books.inspectionsSent);
    expect(checks.books.inspectionsSent).toBeGreaterThan(0);
  });

  it('the audit trail holds an approval and an execution for every delete Google received', () => {
    expect(checks.books.executedAudited).toBe(checks.deletes);
    expect(checks.books.approvalsAudited).toBeGreaterThanOrEqual(checks.deletes);
  });
});
