// Phrases many answers end with. One spelling each, so a model (and a test)
// can rely on them.

export const NOTHING_SENT = 'Nothing was sent to Google.';
export const NOTHING_CHANGED = 'Nothing was changed.';

/** "1 sitemap", "3 sitemaps"; pass the plural when it is not word + s. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The text with its first letter in upper case: a name that starts a sentence ("The Google account …", "This credential …"). */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
