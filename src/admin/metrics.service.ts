import { Injectable } from '@nestjs/common';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Observer } from '../common/observer.js';

/** Prometheus metrics for /metrics: calls by tool and outcome, latency, Google errors, approvals. */
@Injectable()
export class MetricsService implements Observer {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: 'gsc_mcp_tool_calls_total',
    help: 'Tool calls by tool and outcome.',
    labelNames: ['tool', 'outcome'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'gsc_mcp_tool_call_seconds',
    help: 'Tool call latency, including Google.',
    labelNames: ['tool'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly google = new Counter({
    name: 'gsc_mcp_google_errors_total',
    help: 'Failed Google calls by HTTP status (0 = no response).',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly approvals = new Counter({
    name: 'gsc_mcp_approvals_total',
    help: 'Guarded-call decisions by event.',
    labelNames: ['event'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'gsc_mcp_' });
  }

  toolCall(tool: string, outcome: 'ok' | 'error' | 'input_required', seconds: number): void {
    this.calls.inc({ tool, outcome });
    this.latency.observe({ tool }, seconds);
  }

  googleError(status: number | undefined): void {
    this.google.inc({ status: String(status ?? 0) });
  }

  approval(event: string): void {
    this.approvals.inc({ event });
  }
}
