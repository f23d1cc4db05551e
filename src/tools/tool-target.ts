import type * as z from 'zod';
import type { AnnotationRef } from '../property/annotation-id.js';
import type { VerifiedResource } from '../property/verification-resource.js';
import type { TARGET_ARGS, TargetKind } from './call-scope.js';

// The target types of a tool, by its input schema: apart from tool-call.ts so a tool's declaration
// (tool-spec.ts) and the call it receives do not import each other.

/**
 * What SiteAccessGuard resolved a call's arguments to, before any request went
 * out. Which fields exist follows from the target a tool declares (ToolSpec.target):
 * `site` → the checked property, `page` → one checked page, `pages` → checked
 * pages, `resource` → the Site Verification resource, fetched, `annotation` →
 * an annotation id and the checked property it names (nothing is read).
 */
export interface ResolvedTarget {
  readonly site?: string;
  readonly page?: URL;
  readonly pages?: readonly URL[];
  readonly resource?: VerifiedResource;
  readonly annotation?: AnnotationRef;
}

type ShapeOf<I extends z.ZodObject> = I['shape'];
type Has<I extends z.ZodObject, K extends string> = K extends keyof ShapeOf<I> ? true : false;

/** The target kinds a tool with input schema I can declare: those whose argument it has. */
export type TargetKindsOf<I extends z.ZodObject> = {
  [K in TargetKind]: Has<I, (typeof TARGET_ARGS)[K]> extends true ? K : never;
}[TargetKind];

/** The target a tool with input schema I receives: exactly the fields its declared target resolves to, none optional. */
export type TargetOf<I extends z.ZodObject> = { readonly [K in TargetKindsOf<I>]-?: NonNullable<ResolvedTarget[K]> };
