import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecretFileOnce } from '../common/secret-file.js';
import { ConfigError } from '../config/config-error.js';
import type { Config } from '../config/config.js';
import type { GrantKey } from '../config/connected-config.js';
import { GRANT_KEY_FILE, parseGrantKeys } from '../config/connected-settings.js';

/** The keys grants are sealed with: the first encrypts, every one decrypts. */
export interface GrantKeys {
  readonly keys: readonly GrantKey[];
  /** For the start-up line: where they came from, never a value. */
  readonly source: string;
}

/**
 * GSC_GRANT_ENCRYPTION_KEYS, or (SQLite on loopback only, which the
 * configuration enforces) one key generated once into `grant-key` in the state
 * folder, 0600, created with O_EXCL like the approval secret so that processes
 * starting together agree on one. The file holds one `id:base64` line, the
 * same form as the setting, so it can be moved there as it is.
 */
export async function loadGrantKeys(config: Config): Promise<GrantKeys> {
  const connected = config.connected;
  if (!connected) {
    throw new Error('grant keys are only used with connected accounts');
  }
  if (connected.encryptionKeys) {
    const ids = connected.encryptionKeys.map((k) => k.id);
    return { keys: connected.encryptionKeys, source: `grant keys ${ids.join(', ')} from GSC_GRANT_ENCRYPTION_KEYS (${ids[0]} encrypts)` };
  }
  if (config.state.kind !== 'sqlite') {
    throw new Error('GSC_GRANT_ENCRYPTION_KEYS is required with Redis (the configuration checks it)');
  }
  const dir = config.state.dir;
  const file = join(dir, GRANT_KEY_FILE);
  const fresh = `${`f${randomBytes(4).toString('hex')}`}:${randomBytes(32).toString('base64')}`;
  if (createSecretFileOnce(dir, file, fresh)) {
    return { keys: parse(fresh, file), source: `grant key created in ${file}` };
  }
  // A process that won a moment ago may still be writing its one line.
  for (let attempt = 0; ; attempt++) {
    const text = readFileSync(file, 'utf8').trim();
    if (text.length >= 46 || attempt >= 20) {
      return { keys: parse(text, file), source: `grant key kept in ${file}` };
    }
    await sleep(50);
  }
}

function parse(text: string, file: string): GrantKey[] {
  try {
    return parseGrantKeys(text)!;
  } catch {
    // The setting's message would name GSC_GRANT_ENCRYPTION_KEYS; this is the file, and its content is never shown.
    throw new ConfigError(
      `The grant key file ${file} is not one id:base64 line of a 32-byte key; restore it from a backup, or delete it (a new key is then created, and every stored grant asks its person to connect again)`,
    );
  }
}
