// Types of bench/replicas.mjs, for the short run in test/replicas-load.e2e.spec.ts.
export interface ReplicaRunOptions {
  seconds: { steady: number; kill: number; redis: number; recovered: number };
  v1: number;
  v2: number;
  pauseMs: number;
}
export interface Books {
  inspectionsSent: number;
  inspectionsCounted?: number;
  deletes: number;
  executedAudited?: number;
  approvalsAudited?: number;
  error?: string;
}
export interface Phase {
  name: string;
  elapsed: number;
  note: string;
  /** inspect_url calls in flight on a SIGKILLed replica so far: counted by the ledger, perhaps never sent. */
  inspectionsCut: number;
  calls: number;
  latencies: number[];
  errors: Record<string, number>;
  books: Books;
}
export interface Checks {
  deletes: number;
  deletedTwice: string[];
  deletedWithoutApproval: string[];
  replays: number;
  replaysExecuted: number;
  unanswered: number;
  books: Books;
  inspectionsCut: number;
  ledgerMatchesLog: boolean;
  auditMatchesDeletes: boolean;
}
export const FULL: ReplicaRunOptions;
export const SHORT: ReplicaRunOptions;
export function replicaFaultRun(options?: ReplicaRunOptions): Promise<{ phases: Phase[]; checks: Checks }>;
export function replicas(): Promise<{ bar: string; target: string; measured: string; verdict: string }[]>;
