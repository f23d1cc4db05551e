import { DiscoveryService, Reflector } from '@nestjs/core';
import type * as z from 'zod';

/** What a call can do to the world. Annotations, read-only filtering and the approval guard all follow from it. */
export type ToolAccess = 'read' | 'write' | 'destructive';

/** The Google API families a tool talks to; the OAuth scopes requested are derived from them. */
export type GoogleApi = 'searchconsole' | 'indexing' | 'siteverification';

export interface ToolSpec {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly access: ToolAccess;
  readonly apis: readonly GoogleApi[];
  /** Writes only: whether repeating the call has no further effect (default true). */
  readonly idempotent?: boolean;
  /** Part of the `essential` preset of GSC_ALLOW_TOOLS. */
  readonly essential?: boolean;
  /** `site_url` names a property that does not exist yet, so GSC_SITE_URL never fills it in (add_site). */
  readonly newProperty?: boolean;
  /** Destructive tools: the method of the same class that describes what the call will do, for the approval dialog. */
  readonly approval?: string;
}

/** Marks a provider class whose methods carry @Tool declarations. */
export const ToolProvider = DiscoveryService.createDecorator<void>();

/** Declares a provider method as an MCP tool. */
export const Tool = Reflector.createDecorator<ToolSpec>();

export function annotationsFor(spec: ToolSpec) {
  return {
    title: spec.title,
    readOnlyHint: spec.access === 'read',
    destructiveHint: spec.access === 'destructive',
    idempotentHint: spec.access === 'read' ? true : (spec.idempotent ?? true),
    openWorldHint: true,
  };
}
