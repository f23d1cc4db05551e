import { HttpException, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { type CallToolResult, type InputRequiredResult, isInputRequiredResult, ProtocolError } from '@modelcontextprotocol/server';
import { OBSERVER, type Observer } from '../common/observer.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CallPipeline } from './pipeline.js';
import { type CallContext, ToolCall } from '../tools/tool-call.js';
import { errorResult, fitWrite, isToolOutput, outputBytes, RESULT_BUDGET_BYTES, type ToolOutput } from '../tools/tool-output.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { NOTHING_SENT } from '../common/sentences.js';

/**
 * The one place a tool call turns into an MCP result: it runs the call
 * through call/pipeline.ts (its steps in order, then the method), renders
 * the answer, and turns every exception into an
 * isError result with a sentence for the model — except a ProtocolError, which
 * a tool throws only to refuse the request itself (SEP-2322: a requestState
 * that fails verification where the tool rejects rather than asks again) and
 * which therefore stays a JSON-RPC error.
 */
@Injectable()
export class ToolDispatcher {
  private readonly logger = new Logger('ToolDispatcher');

  private inFlight = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly pipeline: CallPipeline,
    @Optional() @Inject(OBSERVER) private readonly observer?: Observer,
  ) {}

  async dispatch(tool: RegisteredTool, args: Record<string, unknown>, context: CallContext): Promise<CallToolResult | InputRequiredResult> {
    const call = new ToolCall(tool, context);
    const started = performance.now();
    this.inFlight++;
    let result: CallToolResult | InputRequiredResult;
    try {
      result = this.render(tool, await this.pipeline.run(tool, args, call));
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.observer?.toolCall(tool.spec.name, 'error', (performance.now() - started) / 1000);
        throw error;
      }
      result = this.fail(tool, error);
    } finally {
      if (--this.inFlight === 0) {
        for (const wake of this.waiters) {
          wake();
        }
      }
    }
    const outcome = isInputRequiredResult(result) ? 'input_required' : result.isError ? 'error' : 'ok';
    this.observer?.toolCall(tool.spec.name, outcome, (performance.now() - started) / 1000);
    return result;
  }

  /**
   * Resolves once no tool call is running (true), or after timeoutMs (false).
   * Shutdown waits on it so that a change Google was asked to make is never cut
   * off half-way; a guarded call still waiting for a person has changed nothing.
   */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) {
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(result);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(wake);
    });
  }

  get running(): number {
    return this.inFlight;
  }

  private render(tool: RegisteredTool, result: unknown): CallToolResult | InputRequiredResult {
    if (isInputRequiredResult(result)) {
      return result;
    }
    if (isStepAnswer(result)) {
      // A step answered instead of the tool (asked to connect, which account; a permission missing): already a result.
      return result;
    }
    if (!isToolOutput(result)) {
      throw new Error(`tool ${tool.spec.name} returned neither a ToolOutput nor input_required`);
    }
    if (outputBytes(result) <= RESULT_BUDGET_BYTES) {
      return toCallToolResult(result);
    }
    this.logger.warn(`${tool.spec.name} produced ${outputBytes(result)} bytes`);
    // A write happened whatever the size of its answer: cut the answer, never the fact.
    if (tool.spec.access !== 'read') {
      return toCallToolResult(fitWrite(result));
    }
    // Still naming who acted on what (connected mode): the size replaced the answer, not the account that read it.
    return errorResult(
      `${result.heading ? `${result.heading}\n` : ''}The result of ${tool.spec.name} is larger than the ${RESULT_BUDGET_BYTES / 1000} kB budget, so it is not shown. Nothing was changed (this tool only reads). Narrow the request (fewer URLs, rows or dimensions) and call again.`,
    );
  }

  private fail(tool: RegisteredTool, error: unknown): CallToolResult {
    if (error instanceof UserFacingError) {
      return errorResult(error.message);
    }
    if (error instanceof HttpException) {
      return errorResult(`${tool.spec.name} was refused: ${error.message}. ${NOTHING_SENT}`);
    }
    this.logger.error(`${tool.spec.name} failed unexpectedly`, error instanceof Error ? error.stack : String(error));
    const changed =
      tool.spec.access === 'read'
        ? 'Nothing was changed (this tool only reads).'
        : 'It is not known whether anything changed at Google; check the current state before retrying.';
    return errorResult(
      `${tool.spec.name} failed with an internal error (${error instanceof Error ? error.message : String(error)}). ${changed}`,
    );
  }
}

export function toCallToolResult(output: ToolOutput): CallToolResult {
  return {
    content: [{ type: 'text', text: output.text }, ...(output.content ?? [])],
    structuredContent: output.structured,
    ...(output.isError ? { isError: true } : {}),
  };
}

/** An answer a step gave instead of the tool's: an MCP result already (a ToolOutput has `text` and `structured` instead). */
function isStepAnswer(result: unknown): result is CallToolResult {
  return !!result && typeof result === 'object' && Array.isArray((result as { content?: unknown }).content) && !isToolOutput(result);
}
