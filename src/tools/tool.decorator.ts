import { SetMetadata } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import type { ToolCall } from './tool-call.js';
import type { ToolSpec } from './tool-spec.js';
import type { TargetOf } from './tool-target.js';
import type { ToolOutput } from './tool-output.js';

/**
 * A tool method: arguments typed by the input schema, the target resolved by SiteAccessGuard. It answers, or
 * (2026-07-28 multi-round requests; the SDK's legacy shim pushes them on 2025-11-25) asks the client for input first.
 */
export type ToolMethod<I extends z.ZodObject> = (
  args: z.infer<I>,
  call: ToolCall<TargetOf<I>>,
) => Promise<ToolOutput | InputRequiredResult>;

/** Marks a provider class whose methods carry @Tool declarations. */
export const ToolProvider = DiscoveryService.createDecorator<void>();

export const TOOL_METADATA = 'gsc:tool';

/**
 * Declares a provider method as an MCP tool. The method's signature is checked
 * against the declaration: its arguments are `z.infer` of the input schema and
 * its call carries the target those arguments resolve to, so renaming an
 * argument is a type error rather than a runtime failure.
 */
export function Tool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>) {
  return SetMetadata(TOOL_METADATA, spec) as <M extends ToolMethod<I>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ) => void;
}

export function annotationsFor(spec: ToolSpec) {
  // No annotations.title: it would repeat the tool's own title, which every client of either revision reads first.
  return {
    readOnlyHint: spec.access === 'read',
    destructiveHint: spec.access === 'destructive',
    idempotentHint: spec.access === 'read' ? true : (spec.idempotent ?? false),
    openWorldHint: !spec.closedWorld,
  };
}
