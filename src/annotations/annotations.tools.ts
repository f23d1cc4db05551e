import { Injectable } from '@nestjs/common';
import type * as z from 'zod';
import { inert } from '../common/inert-text.js';
import { NOTHING_CHANGED, plural } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { neutralise } from '../call/approval/approval-dialog.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { fitToBudget, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { LOCAL_PRINCIPAL } from '../identity/caller.js';
import { AddInput, AddOutput, annotationView, DeleteInput, DeleteOutput, ListInput, ListOutput } from './annotations.schemas.js';
import {
  type Annotation,
  ANNOTATIONS_PER_PROPERTY,
  type Annotator,
  AnnotationsService,
  canDelete,
  canSee,
  isCalendarDate,
} from './annotations.service.js';

/** Said once in every answer: where these notes live and who sees them. */
const OURS = "this server's own notes, not Google data";

/**
 * add_annotation, list_annotations and delete_annotation (PRODUCT.md §5e):
 * notes over the state store, nothing sent to Google. The property is checked
 * by SiteAccessGuard like any site tool (the allowlist and the caller's rule);
 * who sees and deletes which note follows the rule's "annotations" mode.
 */
@ToolProvider()
@Injectable()
export class AnnotationsTools {
  constructor(
    private readonly annotations: AnnotationsService,
    private readonly audit: AuditTrail,
  ) {}

  @Tool({
    name: 'add_annotation',
    title: 'Add annotation',
    description: "Team note on a property's day; never sent to Google.",
    input: AddInput,
    target: ['site'],
    output: AddOutput,
    access: 'write',
    // The same note by the same person is returned, not added again.
    idempotent: true,
    apis: [],
    closedWorld: true,
  })
  async add(args: z.infer<typeof AddInput>, call: ToolCall<TargetOf<typeof AddInput>>): Promise<ToolOutput> {
    const site = call.target.site;
    const { annotation, added, dropped } = await this.annotations.add(site, args, annotatorOf(call));
    const view = annotationView(annotation);
    if (!added) {
      return toolOutput(
        { annotation: view, untrusted: true as const },
        `You already noted this on ${site}: ${noteLine(annotation)}. Nothing was added.`,
      );
    }
    const who =
      call.access.annotations === 'own'
        ? 'Only you see it (your rule keeps notes to each person).'
        : `Everyone allowed on ${site} sees it.`;
    const lines = [
      `Added to ${site} (${OURS}): ${noteLine(annotation)}. ${who} It is listed by list_annotations and in query_search_analytics answers whose window holds ${view.date}.`,
    ];
    if (dropped) {
      const visible = canSee(dropped, annotatorOf(call));
      lines.push(
        `${site} keeps ${ANNOTATIONS_PER_PROPERTY} annotations, so its oldest was dropped: ${visible ? noteLine(dropped) : 'one you cannot see'}.`,
      );
    }
    return toolOutput({ annotation: view, untrusted: true as const }, lines.join(' '));
  }

  @Tool({
    name: 'list_annotations',
    title: 'List annotations',
    description: "Team notes on a property's days (not from Google).",
    input: ListInput,
    target: ['site'],
    output: ListOutput,
    access: 'read',
    apis: [],
    closedWorld: true,
  })
  async list(args: z.infer<typeof ListInput>, call: ToolCall<TargetOf<typeof ListInput>>): Promise<ToolOutput> {
    const site = call.target.site;
    const window = checkWindow(args.start_date, args.end_date);
    const notes = await this.annotations.list(site, window, annotatorOf(call));
    const span = window.start || window.end ? ` ${windowWords(window)}` : '';
    const whose = call.access.annotations === 'own' ? 'your own notes' : OURS;
    if (notes.length === 0) {
      return toolOutput(
        { annotations: [], untrusted: true as const },
        `No annotations on ${site}${span} (${whose}). add_annotation adds one.`,
      );
    }
    return fitToBudget(notes, (kept, left) =>
      toolOutput(
        { annotations: kept.map(annotationView), untrusted: true as const },
        [
          `${plural(notes.length, 'annotation')} on ${site}${span} (${whose}):`,
          ...kept.map((n) => `- ${noteLine(n)}`),
          ...(left ? [`${left} more not shown to stay within the result budget: narrow start_date and end_date.`] : []),
        ].join('\n'),
      ),
    );
  }

  @Tool({
    name: 'delete_annotation',
    title: 'Delete annotation',
    description: 'Delete an annotation by id.',
    input: DeleteInput,
    target: ['annotation'],
    output: DeleteOutput,
    access: 'write',
    idempotent: true,
    apis: [],
    closedWorld: true,
  })
  async delete(_args: z.infer<typeof DeleteInput>, call: ToolCall<TargetOf<typeof DeleteInput>>): Promise<ToolOutput> {
    const ref = call.target.annotation;
    const reader = annotatorOf(call);
    const note = await this.annotations.find(ref);
    // A note the caller cannot see is answered as one that is not there.
    if (!note || !canSee(note, reader)) {
      throw new UserFacingError(
        `${ref.site} has no annotation ${ref.id} that you can see: it was deleted already, or dropped as the oldest past ${ANNOTATIONS_PER_PROPERTY} (list_annotations shows the current ones). ${NOTHING_CHANGED}`,
      );
    }
    if (!canDelete(note, reader)) {
      throw new UserFacingError(
        `Annotation ${ref.id} was written by ${inert(note.author, 120)}; only its author, someone whose policy rule says "annotations": "admin", or the operator (DELETE /admin/annotations) can delete it. ${NOTHING_CHANGED}`,
      );
    }
    const view = annotationView(note);
    if (!(await this.annotations.remove(ref))) {
      throw new UserFacingError(`Annotation ${ref.id} was deleted by someone else a moment ago. ${NOTHING_CHANGED}`);
    }
    await this.audit.record({
      event: 'annotation_deleted',
      tool: 'delete_annotation',
      principal: call.principal,
      era: call.era === 'modern' ? '2026-07-28' : '2025-11-25',
      ...(note.author !== call.principal ? { target_principal: note.author } : {}),
    });
    return toolOutput({ deleted: view, untrusted: true as const }, `Deleted from ${ref.site}: ${noteLine(note)}.`);
  }
}

/** Who the call is, and what their rule says about annotations. */
export function annotatorOf(call: ToolCall<unknown>): Annotator {
  return { principal: call.principal, mode: call.access.annotations };
}

/**
 * One note as a line: its date, its text quoted with control and direction
 * characters made visible (as the approval dialog quotes what a caller
 * supplied), its tag, its author and its id.
 */
export function noteLine(n: Annotation): string {
  const tag = n.tag ? ` [${neutralise(n.tag)}]` : '';
  const by = n.author !== LOCAL_PRINCIPAL ? ` by ${inert(n.author, 120)}` : '';
  return `${n.date} "${neutralise(n.text)}"${tag}${by} (id ${n.id})`;
}

function checkWindow(start: string | undefined, end: string | undefined): { start?: string; end?: string } {
  for (const [name, value] of [
    ['start_date', start],
    ['end_date', end],
  ] as const) {
    if (value !== undefined && !isCalendarDate(value)) {
      throw new UserFacingError(`${name} "${inert(value, 40)}" is not a calendar date; use YYYY-MM-DD. ${NOTHING_CHANGED}`);
    }
  }
  if (start && end && end < start) {
    throw new UserFacingError(`end_date ${end} is before start_date ${start}; both are inclusive. ${NOTHING_CHANGED}`);
  }
  return { ...(start ? { start } : {}), ...(end ? { end } : {}) };
}

function windowWords(window: { start?: string; end?: string }): string {
  if (window.start && window.end) {
    return window.start === window.end ? `on ${window.start}` : `from ${window.start} to ${window.end}`;
  }
  return window.start ? `from ${window.start} on` : `up to ${window.end}`;
}
