/**
 * Site Verification ids are returned percent-encoded ("dns%3A%2F%2Fexample.com")
 * and the generated client encodes the id again, so a tool that passed the id
 * through would double-encode it. Accept both spellings and hand the client the
 * decoded one.
 */
export function decodeResourceId(id: string): string {
  const trimmed = id.trim();
  if (!/%[0-9a-f]{2}/i.test(trimmed)) {
    return trimmed;
  }
  try {
    return decodeURIComponent(trimmed);
  } catch {
    return trimmed;
  }
}
