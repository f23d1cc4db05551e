import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { UserFacingError } from '../common/user-facing-error.js';
import type { AnnotationMode } from '../config/policy-file.js';
import { type AnnotationRef, annotationId } from '../property/annotation-id.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore, StreamEntry } from '../state/state-store.js';
import { stateKey, stateName } from '../state/keys.js';

/** Annotations kept per property, as Search Console's own UI keeps them (briefs/wave4.md): the oldest goes first. */
export const ANNOTATIONS_PER_PROPERTY = 200;
/** Characters (code points) of one note, as in Search Console's UI. */
export const TEXT_MAX = 120;
export const TAG_MAX = 30;

/** One team note on one day of a property. Nothing of it goes to Google. */
export interface Annotation {
  /** `<entry>@<property>` (property/annotation-id.ts). */
  readonly id: string;
  readonly site: string;
  /** YYYY-MM-DD, the day the note is about (Search Console's days are Pacific). */
  readonly date: string;
  /** As written: shown through escapeInvisible/neutralise, never as markup. */
  readonly text: string;
  readonly tag?: string;
  /** The principal who wrote it. */
  readonly author: string;
  /** Written under an "own" rule: seen by its author alone (and by ops). */
  readonly private?: true;
  readonly created_at: string;
}

/** Who reads or writes, and what their rule says about annotations (Access.annotations). */
export interface Annotator {
  readonly principal: string;
  readonly mode: AnnotationMode;
}

export interface NewAnnotation {
  readonly date: string;
  readonly text: string;
  readonly tag?: string;
}

export interface Added {
  readonly annotation: Annotation;
  /** false: the same note by the same person was already there, so nothing was added (a retried call adds no twin). */
  readonly added: boolean;
  /** The property's oldest annotation, dropped to stay within ANNOTATIONS_PER_PROPERTY. */
  readonly dropped?: Annotation;
}

/** A date window, both ends inclusive; either end may be open. */
export interface DateWindow {
  readonly start?: string;
  readonly end?: string;
}

type Stored = Omit<Annotation, 'id' | 'site'>;

/**
 * Team annotations (PRODUCT.md §5e) in the state store, so they survive
 * restarts and every replica sees the same ones: one stream per property
 * (append with maxLength is the bound, atomically on SQLite and Redis; an
 * annotation's id is its entry there, plus the property), and an index stream
 * of the properties that have had one, for the operations listing (the store
 * has no key scan). Who may see or delete which note is decided here, from the
 * caller's rule (`shared`, `own`, `admin`); which properties they may use is
 * decided before (SiteAccessGuard).
 */
@Injectable()
export class AnnotationsService {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    private readonly clock: Clock,
  ) {}

  /** Adds a note (the same note by the same person is returned, not added twice); the property's oldest goes past the bound. */
  async add(site: string, note: NewAnnotation, writer: Annotator): Promise<Added> {
    const checked = checkNote(note);
    const before = await this.read(site);
    const twin = before.find(
      (a) => a.author === writer.principal && a.date === checked.date && a.text === checked.text && a.tag === checked.tag,
    );
    if (twin) {
      return { annotation: twin, added: false };
    }
    const stored: Stored = {
      ...checked,
      author: writer.principal,
      ...(writer.mode === 'own' ? { private: true as const } : {}),
      created_at: this.clock.now().toISOString(),
    };
    const entry = await this.store.append(streamOf(site), JSON.stringify(stored), { maxLength: ANNOTATIONS_PER_PROPERTY });
    if (before.length === 0) {
      await this.remember(site);
    }
    // Read before the append: under two adds at once, each may miss the other's drop; the bound itself holds.
    const dropped = before.length >= ANNOTATIONS_PER_PROPERTY ? before[0] : undefined;
    return { annotation: { id: annotationId(entry, site), site, ...stored }, added: true, ...(dropped ? { dropped } : {}) };
  }

  /** The property's notes this reader may see (every note when no reader is given: ops), by date, then as written. */
  async list(site: string, window: DateWindow = {}, reader?: Annotator): Promise<Annotation[]> {
    return (await this.read(site))
      .filter((a) => (!window.start || a.date >= window.start) && (!window.end || a.date <= window.end))
      .filter((a) => !reader || canSee(a, reader))
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }

  /** The note an id names, whoever may see it (callers check canSee), or undefined. */
  async find(ref: AnnotationRef): Promise<Annotation | undefined> {
    return (await this.read(ref.site)).find((a) => a.id === ref.id);
  }

  /** Removes a note; false when it was not there (deleted already, or dropped past the bound). */
  async remove(ref: AnnotationRef): Promise<boolean> {
    return this.store.removeEntry(streamOf(ref.site), ref.entry);
  }

  /** Properties that have had an annotation on this store (some may have none left), in the order they got their first. */
  async properties(): Promise<string[]> {
    return [...new Set((await this.store.read(PROPERTIES_INDEX)).map((e) => e.value))];
  }

  private async read(site: string): Promise<Annotation[]> {
    return (await this.store.read(streamOf(site))).flatMap((entry) => parse(entry, site));
  }

  private async remember(site: string): Promise<void> {
    if (!(await this.properties()).includes(site)) {
      await this.store.append(PROPERTIES_INDEX, site);
    }
  }
}

/** Whether a reader sees a note: their own always; others' shared ones unless their rule keeps them to their own. */
export function canSee(note: Annotation, reader: Annotator): boolean {
  return note.author === reader.principal || (reader.mode !== 'own' && !note.private);
}

/** Whether a reader may delete a note they see: their own, or any shared one under an "admin" rule. */
export function canDelete(note: Annotation, reader: Annotator): boolean {
  return note.author === reader.principal || (reader.mode === 'admin' && !note.private);
}

/** The property's stream (its name stays one key whatever the property's characters). */
export function streamOf(site: string): string {
  return stateKey('annotations', encodeURIComponent(site));
}

export const PROPERTIES_INDEX = stateName('annotationProperties');

/** A note's fields as stored: trimmed, checked; each refusal a sentence naming the field. */
export function checkNote(note: NewAnnotation): NewAnnotation {
  const date = note.date.trim();
  if (!isCalendarDate(date)) {
    throw new UserFacingError(
      `date "${date.slice(0, 40)}" is not a calendar date; use YYYY-MM-DD (Pacific, as Search Console's days are). ${NOT_STORED}`,
    );
  }
  const text = note.text.trim();
  if (!text) {
    throw new UserFacingError(`text is empty; write what happened that day, e.g. "Migrated the blog to /news/". ${NOT_STORED}`);
  }
  if ([...text].length > TEXT_MAX) {
    throw new UserFacingError(
      `text has ${[...text].length} characters; a note holds at most ${TEXT_MAX}, as in Search Console. ${NOT_STORED}`,
    );
  }
  const tag = note.tag?.trim();
  if (tag !== undefined && (!tag || [...tag].length > TAG_MAX)) {
    throw new UserFacingError(`tag is a short label of 1 to ${TAG_MAX} characters, e.g. "release"; leave it out for none. ${NOT_STORED}`);
  }
  return { date, text, ...(tag ? { tag } : {}) };
}

const NOT_STORED = 'Nothing was stored.';

/** A real calendar day in YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return !!m && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).toISOString().startsWith(value);
}

/** A stored entry as an annotation; an entry that does not parse (written by a newer version?) is skipped, not fatal. */
function parse(entry: StreamEntry, site: string): Annotation[] {
  try {
    const stored = JSON.parse(entry.value) as Stored;
    if (typeof stored.date !== 'string' || typeof stored.text !== 'string' || typeof stored.author !== 'string') {
      return [];
    }
    return [{ id: annotationId(entry.id, site), site, ...stored }];
  } catch {
    return [];
  }
}
