import * as z from 'zod';
import { escapeInvisible } from '../common/inert-text.js';
import { LOCAL_PRINCIPAL } from '../identity/caller.js';
import { SiteUrlArg } from '../tools/tool-args.js';
import { type Annotation, TEXT_MAX } from './annotations.service.js';

// Short descriptions on purpose: the three tools and the annotations of
// query_search_analytics are paid for in every tools/list (PRODUCT.md §10).

const DATE = 'YYYY-MM-DD';

export const AddInput = z.object({
  site_url: SiteUrlArg,
  date: z.string().describe(DATE),
  // The bound is said, not given as maxLength: that keyword is outside Gemini's schema subset (strict-converters
  // spec). The service refuses a longer text with a sentence.
  text: z.string().describe(`At most ${TEXT_MAX} characters.`),
  // Its bound (TAG_MAX) is checked by the service with a sentence; not advertised, to keep tools/list small.
  tag: z.string().optional(),
});

export const ListInput = z.object({
  site_url: SiteUrlArg,
  start_date: z.string().optional(),
  end_date: z.string().optional(),
});

export const DeleteInput = z.object({
  id: z.string(),
});

/**
 * One annotation in an answer (list_annotations, add_annotation, and the
 * annotations[] of query_search_analytics, which the performance view draws).
 * Its text and tag are as written, with control, invisible and direction-changing
 * characters shown as \uXXXX escapes; a view inserts them as text.
 */
export const AnnotationOut = z.object({
  id: z.string(),
  date: z.string(),
  text: z.string(),
  tag: z.string().optional(),
  author: z.string().optional().describe('Who wrote it (their principal); absent for the single local user.'),
});
export type AnnotationView = z.infer<typeof AnnotationOut>;

export const AnnotationsOut = z
  .array(AnnotationOut)
  .describe("This server's own team notes on days of the window (not Google data): by date, then as written.");

// What was dropped past the bound, and whether the note was already there, are in the text (tools/list is
// paid for on every request; PRODUCT.md §10).
export const AddOutput = z.object({
  annotation: AnnotationOut.describe('The note added, or the same note by you already there (the text says which).'),
  untrusted: z.literal(true),
});

export const ListOutput = z.object({ annotations: AnnotationsOut, untrusted: z.literal(true) });

export const DeleteOutput = z.object({ deleted: AnnotationOut, untrusted: z.literal(true) });

/**
 * What others see of an annotation. The author is the writer's principal as the
 * server knows it (an e-mail under OAuth or a host app): the people allowed on a
 * property are one team, and a note is worth most with who to ask about it, as
 * a comment shows its author. `local` (stdio, loopback without a token) names no
 * one, so it is left out.
 */
export function annotationView(a: Annotation): AnnotationView {
  return {
    id: a.id,
    date: a.date,
    text: escapeInvisible(a.text),
    ...(a.tag ? { tag: escapeInvisible(a.tag) } : {}),
    ...(a.author !== LOCAL_PRINCIPAL ? { author: a.author } : {}),
  };
}
