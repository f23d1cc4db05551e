import { hasInvisible } from '../common/inert-text.js';
import { ConfigError } from './config-error.js';
import { notShown, quote, strongSecretShape } from './quote.js';

// Checks shared by every setting that holds a path or a short piece of text.
// Key material in the wrong variable is the common paste mistake, so it gets its
// own sentence, which names the variable the key belongs in.

/** A path setting: no key material, no control characters. */
export function assertPath(name: string, value: string): void {
  const looksLike = strongSecretShape(value);
  if (looksLike) {
    throw new ConfigError(
      `${name} must be a path (got ${notShown(looksLike)}); put a service account key in GSC_SERVICE_ACCOUNT_KEY, or its file’s path here`,
    );
  }
  if (hasInvisible(value)) {
    throw new ConfigError(`${name} ${quote(value)} contains control characters; a path is one line of printable text`);
  }
}

/**
 * A short non-secret text setting that is shown later (an audience, a claim
 * name): one line, bounded, and nothing unmistakably secret.
 */
export function assertPlainText(name: string, value: string, forms: string, max = 1024): void {
  if (strongSecretShape(value) || hasInvisible(value) || value.length > max) {
    throw new ConfigError(`${name} must be ${forms} (got ${quote(value)})`);
  }
}
