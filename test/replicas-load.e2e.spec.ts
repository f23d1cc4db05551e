import { describe, expect, it } from '@jest/globals';
import { booksAgree, type Checks, type Phase, replicaFaultRun, SHORT } from '../bench/replicas.mjs';

// The 20-second version of `npm run bench -- replicas` (issues 21, 33): three
// built server binaries on one real redis-server behind Debian's nginx, run by
// bench/nginx.mjs with deploy/nginx/google-search-console-mcp.conf (round robin
// for 2026-07-28, each 2025-11-25 session on the replica that opened it). v1
// clients answer pushed dialogs, v2 clients use the two-call token; reads and
// delete_sitemap throughout, each client pausing 150 ms between calls (the bench's
// do not). Four phases of five seconds: steady, then a replica
// SIGKILLed mid-approval and restarted at the start of each of the next three,
// Redis stopped and continued in the third. nginx missing or failing to start
// fails this suite (bench/nginx.mjs throws), never skips it. The emulator's
// request log is the witness of what reached Google. Figures are printed, never asserted.

describe('three replicas on one Redis behind nginx, under load, through replica kills and a Redis stop', () => {
  let phases: Phase[];
  let checks: Checks;

  it('runs every phase, with calls answered in each and a replica killed with approvals in flight', async () => {
    ({ phases, checks } = await replicaFaultRun(SHORT));
    process.stderr.write(
      phases
        .map(
          (p) =>
            `${p.name}: ${p.calls} calls in ${p.elapsed.toFixed(1)} s, errors ${JSON.stringify(p.errors)}${p.note ? `; ${p.note}` : ''}`,
        )
        .join('\n') +
        `\nsessions checked for stickiness: ${checks.sticky.checked}\n` +
        phases.flatMap((p) => Object.entries(p.messages).map(([m, n]) => `${p.name}: ${n} × ${m}\n`)).join(''),
    );
    expect(phases.map((p) => p.name)).toEqual(['steady', 'replica killed', 'replica killed, Redis paused', 'replica killed again']);
    for (const phase of phases) {
      expect([phase.name, phase.calls > 0]).toEqual([phase.name, true]);
    }
    for (const phase of phases.slice(1)) {
      // Killed mid-approval, as the name says (the kill waits up to 3 s for a replica holding one).
      expect(phase.note).toMatch(/^replica [123] SIGKILLed with [1-9]\d* approvals? in flight on it, back in/);
    }
    expect(phases[2].note).toMatch(/Redis SIGSTOP for \d+ ms, then SIGCONT$/);
    // Nothing fails while nothing is broken: in the steady phase the only refusals are the forged tokens the clients send on purpose.
    expect(Object.keys(phases[0].errors).filter((e) => e !== 'forged token refused')).toEqual([]);
  }, 120_000);

  it('every request of a 2025-11-25 session went to the replica nginx named in its id (from the access log nginx writes)', () => {
    expect(checks.sticky.checked).toBeGreaterThan(0);
    expect(checks.sticky.elsewhere).toEqual([]);
  });

  it('every call got an answer or an error that says what failed and that it can be retried', () => {
    expect(checks.unanswered).toBe(0);
    expect(checks.unclear).toEqual([]);
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

  it('after every phase the quota ledger equals the inspections Google answered, but for calls cut by a SIGKILL or answered "not counted"', () => {
    for (const phase of phases) {
      expect([phase.name, phase.books.error]).toEqual([phase.name, undefined]);
      expect([phase.name, booksAgree(phase.books, phase.cut).ledger]).toEqual([phase.name, true]);
    }
    // Before the first kill nothing was cut: the books equal Google's log exactly.
    expect(phases[0].cut).toEqual({ inspect_url: 0, delete_sitemap: 0, uncounted: 0 });
    expect(phases[0].books.inspectionsCounted).toBe(phases[0].books.inspectionsSent);
    expect(checks.books.inspectionsSent).toBeGreaterThan(0);
    expect(checks.ledgerMatchesLog).toBe(true);
  });

  it('the audit trail holds an approval for every delete Google received, and its execution unless the replica died first', () => {
    expect(checks.books.auditUnread).toBe(0);
    expect(checks.books.auditDuplicates).toBe(0);
    expect(checks.books.approvalsAudited).toBeGreaterThanOrEqual(checks.deletes);
    expect(phases[0].books.executedAudited).toBe(phases[0].books.deletes);
    expect(checks.auditMatchesDeletes).toBe(true);
  });

  it('the books check can fail: one inspection counted more than the calls cut, one execution unaudited, or one audit entry trimmed unread or there twice', () => {
    const books = { inspectionsSent: 10, inspectionsCounted: 10, deletes: 4, executedAudited: 4, approvalsAudited: 4 };
    expect(booksAgree(books, { inspect_url: 0, delete_sitemap: 0 })).toEqual({ ledger: true, audit: true });
    expect(booksAgree({ ...books, inspectionsCounted: 11 }, { inspect_url: 0, delete_sitemap: 0 }).ledger).toBe(false);
    expect(booksAgree({ ...books, inspectionsCounted: 9 }, { inspect_url: 5, delete_sitemap: 0 }).ledger).toBe(false);
    expect(booksAgree({ ...books, inspectionsCounted: 9 }, { inspect_url: 0, delete_sitemap: 0, uncounted: 1 }).ledger).toBe(true);
    expect(booksAgree({ ...books, inspectionsCounted: 8 }, { inspect_url: 0, delete_sitemap: 0, uncounted: 1 }).ledger).toBe(false);
    expect(booksAgree({ ...books, executedAudited: 3 }, { inspect_url: 0, delete_sitemap: 0 }).audit).toBe(false);
    expect(booksAgree({ ...books, approvalsAudited: 3 }, { inspect_url: 0, delete_sitemap: 5 }).audit).toBe(false);
    expect(booksAgree({ ...books, auditUnread: 1 }, { inspect_url: 0, delete_sitemap: 0 }).audit).toBe(false);
    expect(booksAgree({ ...books, auditDuplicates: 1 }, { inspect_url: 0, delete_sitemap: 0 }).audit).toBe(false);
  });
});
