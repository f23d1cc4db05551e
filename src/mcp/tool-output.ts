import type { ContentBlock } from '@modelcontextprotocol/server';

/** What a tool method returns: the structured half (matching its output schema) and the text a model reads. */
export interface ToolOutput<T extends Record<string, unknown> = Record<string, unknown>> {
  readonly structured: T;
  readonly text: string;
  /** Blocks after the text, e.g. resource_link to an export. */
  readonly content?: readonly ContentBlock[];
  /** A refusal that still carries structured facts (e.g. a rejected confirm_token). */
  readonly isError?: boolean;
}

export function toolOutput<T extends Record<string, unknown>>(structured: T, text: string): ToolOutput<T> {
  return { structured, text };
}

export function isToolOutput(value: unknown): value is ToolOutput {
  return !!value && typeof value === 'object' && 'structured' in value && 'text' in value;
}

/** A tool result never exceeds this many bytes (structured JSON plus text). */
export const RESULT_BUDGET_BYTES = 100_000;

export function outputBytes(output: ToolOutput): number {
  return Buffer.byteLength(JSON.stringify(output.structured)) + Buffer.byteLength(output.text) + (output.content ? Buffer.byteLength(JSON.stringify(output.content)) : 0);
}

/**
 * Builds a list result that fits the budget by dropping whole entries from the
 * end — never cutting a JSON document — and lets the builder say how many were
 * dropped and how to narrow the request.
 */
export function fitToBudget<T>(items: readonly T[], build: (kept: readonly T[], dropped: number) => ToolOutput, budget = RESULT_BUDGET_BYTES): ToolOutput {
  const full = build(items, 0);
  if (outputBytes(full) <= budget) return full;
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (outputBytes(build(items.slice(0, mid), items.length - mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  return build(items.slice(0, low), items.length - low);
}
