import { safeLine } from './quote.js';

// Values of the secret settings read by the last load: a message that somehow
// carries one (a path nobody routed through quote()) has it replaced.
let secretValues: readonly string[] = [];

/** Called by the loader with the secrets it read, before it validates anything. */
export function rememberSecrets(values: readonly string[]): void {
  secretValues = values.filter((v) => v.length >= 8);
}

/**
 * A configuration mistake. Its message is one line naming the variable, what is
 * wrong and the valid forms; values appear only through quote(), and a secret's
 * value never does — the constructor enforces one line, a length bound, masked
 * URL passwords and no known secret as a last line of defence. The entry point
 * prints it to stderr and exits with code 1; the embedded module throws it.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(message: string) {
    super(safeLine(message, secretValues));
  }
}
