/**
 * A configuration mistake. Its message is one line naming the variable, what is
 * wrong and the valid forms; it never contains a secret's value. The entry point
 * prints it to stderr and exits with code 1.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
