import { Injectable } from '@nestjs/common';
import { plural } from '../common/sentences.js';
import { StateUnavailableError } from '../state/state-store.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { ToolOutput } from '../tools/tool-output.js';
import { annotationView } from './annotations.schemas.js';
import { type Annotation, AnnotationsService, type DateWindow } from './annotations.service.js';
import { annotatorOf, noteLine } from './annotations.tools.js';

/** Notes named one by one in the text line; structuredContent.annotations has them all. */
const IN_TEXT = 10;

/** The part of a query_search_analytics answer this reads: its property and the windows it covers. */
interface Windowed {
  readonly site_url?: unknown;
  readonly start_date?: unknown;
  readonly end_date?: unknown;
  readonly compare?: { readonly previous?: { readonly start_date?: unknown; readonly end_date?: unknown } };
}

/**
 * The annotations of query_search_analytics (PRODUCT.md §5e): the notes that
 * fall inside the window of an answer (both windows of a compare) join it as
 * `annotations[]` and one text line, so "why did clicks drop on the 3rd?" meets
 * "migrated the blog on the 3rd". They follow the same rules as
 * list_annotations: only for a caller who may use it, and only the notes they
 * may see. A store that cannot be read leaves the numbers as they are, with a
 * line that says so.
 */
@Injectable()
export class WindowAnnotations {
  constructor(private readonly annotations: AnnotationsService) {}

  async attach(output: ToolOutput, call: ToolCall<unknown>): Promise<ToolOutput> {
    const facts = output.structured as Windowed;
    if (!call.access.tools.has('list_annotations') || typeof facts.site_url !== 'string') {
      return output;
    }
    const windows = [windowOf(facts), windowOf(facts.compare?.previous ?? {})].filter((w): w is Required<DateWindow> => !!w);
    let notes: Annotation[];
    try {
      const all = await this.annotations.list(facts.site_url, {}, annotatorOf(call));
      notes = all.filter((a) => windows.some((w) => a.date >= w.start && a.date <= w.end));
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        throw error;
      }
      return { ...output, text: `${output.text}\nAnnotations: not read (${error.message}); the figures above are unaffected.` };
    }
    if (notes.length === 0) {
      return output;
    }
    const named = notes.slice(0, IN_TEXT).map(noteLine).join('; ');
    const more = notes.length > IN_TEXT ? `; and ${notes.length - IN_TEXT} more (structuredContent.annotations, list_annotations)` : '';
    return {
      ...output,
      structured: { ...output.structured, annotations: notes.map(annotationView) },
      text: `${output.text}\nAnnotations in this window (${plural(notes.length, 'team note')}, kept by this server, not Google data): ${named}${more}.`,
    };
  }
}

function windowOf(w: { readonly start_date?: unknown; readonly end_date?: unknown }): Required<DateWindow> | undefined {
  return typeof w.start_date === 'string' && typeof w.end_date === 'string' ? { start: w.start_date, end: w.end_date } : undefined;
}
