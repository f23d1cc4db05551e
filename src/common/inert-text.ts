// Caller- and Google-supplied text (queries, page titles, URLs, owner addresses,
// error messages) can carry line breaks, control characters, bidi overrides and
// zero-width characters meant to make it pass for the server's own words. Text
// blocks show such characters as visible \uXXXX escapes instead, and cap length.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** The invisible characters of a value shown as \uXXXX escapes, uncapped. */
export function escapeInvisible(value: string): string {
  return value.replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function inert(value: string, max = 300): string {
  const visible = escapeInvisible(value);
  return visible.length > max ? `${visible.slice(0, max)}… (${visible.length - max} more characters)` : visible;
}

/** Whether a value carries any character inert() would escape: no business in a principal, group or name. */
export function hasInvisible(value: string): boolean {
  INVISIBLE.lastIndex = 0;
  return INVISIBLE.test(value);
}
