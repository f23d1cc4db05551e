/**
 * What the server reports about its own work — tool calls, Google failures,
 * approval decisions. Optional: the HTTP server provides a Prometheus-backed
 * implementation (admin/metrics.service.ts); the stdio server has nowhere to
 * expose metrics and provides none, so recording costs nothing there.
 */
export const OBSERVER = Symbol('OBSERVER');

export interface Observer {
  toolCall(tool: string, outcome: 'ok' | 'error' | 'input_required', seconds: number): void;
  googleError(status: number | undefined): void;
  approval(event: string): void;
}
