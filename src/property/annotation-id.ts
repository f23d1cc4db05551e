import { normalizeProperty, PropertyError } from './property.js';

/**
 * An annotation's id names the property it belongs to: `<entry>@<property>`,
 * e.g. `1767225600000-0@sc-domain:example.com`, where the entry is its id in
 * that property's stream of the state store. So the allowlist and the caller's
 * rule are checked on the property before anything is read (SiteAccessGuard),
 * and an id of a property the caller may not use is refused naming only what
 * the caller wrote — never whether such an annotation exists.
 */
export interface AnnotationRef {
  /** The id as the tools show it. */
  readonly id: string;
  /** Its entry in the property's stream. */
  readonly entry: string;
  /** The normalised property. */
  readonly site: string;
}

const ENTRY = /^\d{1,15}-\d{1,15}$/;

export function annotationId(entry: string, site: string): string {
  return `${entry}@${site}`;
}

/** The reference an id names, or undefined when it is not an annotation id (a property that does not parse included). */
export function parseAnnotationId(id: string): AnnotationRef | undefined {
  const trimmed = id.trim();
  const at = trimmed.indexOf('@');
  const entry = trimmed.slice(0, at);
  if (at < 0 || !ENTRY.test(entry)) {
    return undefined;
  }
  try {
    const site = normalizeProperty(trimmed.slice(at + 1));
    return { id: annotationId(entry, site), entry, site };
  } catch (error) {
    if (error instanceof PropertyError) {
      return undefined;
    }
    throw error;
  }
}
