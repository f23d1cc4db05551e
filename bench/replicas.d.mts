// Types of bench/replicas.mjs, for the 20-second run in test/replicas-load.e2e.spec.ts.
export interface ReplicaRunOptions {
  /** Each of the four phases (steady; replica killed; replica killed, Redis paused; replica killed again). */
  phaseSeconds: number;
  v1: number;
  v2: number;
  pauseMs: number;
  /** Each client's own request timeout. */
  timeoutMs: number;
  /** Each client's pause between calls (0: as fast as it can). */
  paceMs: number;
}
export interface Books {
  inspectionsSent: number;
  inspectionsCounted?: number;
  deletes: number;
  executedAudited?: number;
  approvalsAudited?: number;
  /** Audit entries the stream trimmed (it keeps its newest 10 000) before the bench read them. */
  auditUnread?: number;
  /** Audit entries found twice in the stream (a write that timed out, carried out after all, then written again). */
  auditDuplicates?: number;
  error?: string;
}
/** Calls that got no answer so far, by tool: cut by a SIGKILL. */
export interface Cut {
  inspect_url: number;
  delete_sitemap: number;
  /** inspect_url answers that said "this call was not counted" (the store was unreachable). */
  uncounted?: number;
}
export interface Phase {
  name: string;
  elapsed: number;
  note: string;
  cut: Cut;
  calls: number;
  latencies: number[];
  errors: Record<string, number>;
  messages: Record<string, number>;
  books: Books;
}
export interface Checks {
  deletes: number;
  deletedTwice: string[];
  deletedWithoutApproval: string[];
  replays: number;
  replaysExecuted: number;
  unanswered: number;
  /** Error messages that say neither to retry nor to start a new session. */
  unclear: string[];
  books: Books;
  cut: Cut;
  ledgerMatchesLog: boolean;
  auditMatchesDeletes: boolean;
  sticky: { checked: number; elsewhere: string[] };
}
export const FULL: ReplicaRunOptions;
export const SHORT: ReplicaRunOptions;
export function booksAgree(books: Books, cut: Cut): { ledger: boolean; audit: boolean };
export function replicaFaultRun(options?: ReplicaRunOptions): Promise<{ phases: Phase[]; checks: Checks }>;
export function replicas(): Promise<{ bar: string; target: string; measured: string; verdict: string }[]>;
