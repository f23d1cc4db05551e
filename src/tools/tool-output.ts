import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';

/** What a tool method returns: the structured half (matching its output schema) and the text a model reads. */
export interface ToolOutput<T extends Record<string, unknown> = Record<string, unknown>> {
  readonly structured: T;
  readonly text: string;
  /** Blocks after the text, e.g. resource_link to an export. */
  readonly content?: readonly ContentBlock[];
  /** A refusal that still carries structured facts (e.g. a rejected confirm_token). */
  readonly isError?: boolean;
  /**
   * The text's first line when it names who acted ("As <account> on <property>:", call/acting-account.ts), kept apart
   * so that an answer replaced for its size still says it.
   */
  readonly heading?: string;
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
  return (
    Buffer.byteLength(JSON.stringify(output.structured)) +
    Buffer.byteLength(output.text) +
    (output.content ? Buffer.byteLength(JSON.stringify(output.content)) : 0)
  );
}

/**
 * Builds a list result that fits the budget by dropping whole entries from the
 * end — never cutting a JSON document — and lets the builder say how many were
 * dropped and how to narrow the request.
 */
export function fitToBudget<T>(
  items: readonly T[],
  build: (kept: readonly T[], dropped: number) => ToolOutput,
  budget = RESULT_BUDGET_BYTES,
): ToolOutput {
  const full = build(items, 0);
  if (outputBytes(full) <= budget) {
    return full;
  }
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (outputBytes(build(items.slice(0, mid), items.length - mid)) <= budget) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return build(items.slice(0, low), items.length - low);
}

const CUT_NOTE = ' … [cut to stay within the 100 kB result budget; the change was made as this result says]';

/**
 * A write that happened is reported as done, however long its answer: long
 * strings are cut (the text first, then values in the structured part),
 * never the facts of what happened, and never into a refusal that would
 * invite the caller to send it again.
 */
export function fitWrite(output: ToolOutput, budget = RESULT_BUDGET_BYTES): ToolOutput {
  if (outputBytes(output) <= budget) {
    return output;
  }
  for (const max of [2000, 500, 200, 80]) {
    const structured = cutStrings(output.structured, max) as Record<string, unknown>;
    const room = budget - Buffer.byteLength(JSON.stringify(structured)) - Buffer.byteLength(CUT_NOTE);
    if (room >= 200) {
      return { ...output, structured, text: `${cutToBytes(output.text, room)}${CUT_NOTE}` };
    }
  }
  const structured = cutStrings(output.structured, 40) as Record<string, unknown>;
  return { ...output, structured, text: `${cutToBytes(output.text, 200)}${CUT_NOTE}` };
}

function cutStrings(value: unknown, max: number): unknown {
  if (typeof value === 'string') {
    return value.length > max ? `${value.slice(0, max)}…` : value;
  }
  if (Array.isArray(value)) {
    return value.map((v) => cutStrings(v, max));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, max)]));
  }
  return value;
}

/** The longest prefix of text within `bytes` UTF-8 bytes, never splitting a character. */
function cutToBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) {
    return text;
  }
  let end = Math.min(text.length, bytes);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > bytes) {
    end = Math.floor(end * 0.9);
  }
  // Do not end on the first half of a surrogate pair.
  if (end > 0 && /[\ud800-\udbff]/.test(text[end - 1])) {
    end--;
  }
  return text.slice(0, end);
}

/** A tool failure as the model reads it: one isError result with the sentence (what failed, why, what to do next). */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
