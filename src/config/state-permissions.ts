import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';
import { GRANT_KEY_FILE } from './connected-settings.js';
import { quote } from './quote.js';

// The embedded state folder holds the approval secret (when GSC_APPROVAL_SECRET
// is unset) and the record of used approvals: whoever can read the secret can
// forge an approval, and whoever can write the folder can replace the secret
// or forget a used approval. The server creates the folder 0700 and the file
// 0600; a folder or file someone loosened is refused at start-up.
//
// "Others" means every user of the machine (the o bits). The group bits are
// left alone on purpose: a group is how a deployment shares a volume
// deliberately (Kubernetes' fsGroup makes a volume group-writable and its
// files group-readable), while access for everyone is never deliberate.

/** Same name as state/approval-secret.ts's APPROVAL_SECRET_FILE; config is parsed before the state layer loads. */
const SECRET_FILE = 'approval-secret';

export interface StatePermissionOptions {
  /** The folder came from GSC_STATE_DIR (else it is the default state folder). */
  readonly named: boolean;
  /** The secret file is read (GSC_APPROVAL_SECRET is unset). */
  readonly secretFile: boolean;
  /** The grant key file is read (connected accounts without GSC_GRANT_ENCRYPTION_KEYS). */
  readonly grantKeyFile?: boolean;
}

/** Throws ConfigError (one line) for a state folder others may write, or an approval-secret file others may read or write. */
export function checkStatePermissions(dir: string, options: StatePermissionOptions): void {
  // Windows has no such mode bits: its ACLs are not what stat reports.
  if (process.platform === 'win32') {
    return;
  }
  const folder = modeOf(dir);
  const which = options.named ? `GSC_STATE_DIR ${quote(dir)}` : `The state folder ${quote(dir)} (the default; GSC_STATE_DIR is unset)`;
  if (folder !== undefined && folder & 0o002) {
    throw new ConfigError(
      `${which} is writable by every user of this machine (mode ${octal(folder)}), who could replace the approval secret or the record of used approvals in it; ` +
        `run chmod o-w ${quote(dir)} (the server creates it 0700), or point GSC_STATE_DIR at a folder only this user can write`,
    );
  }
  if (options.grantKeyFile) {
    const keyFile = join(dir, GRANT_KEY_FILE);
    const mode = modeOf(keyFile);
    if (mode !== undefined && mode & 0o006) {
      throw new ConfigError(
        `The grant key ${quote(keyFile)} is ${mode & 0o004 ? 'readable' : 'writable'} by every user of this machine (mode ${octal(mode)}), and anyone who reads it can open every stored Google grant; ` +
          `run chmod 600 ${quote(keyFile)} (the server creates it 0600), or set GSC_GRANT_ENCRYPTION_KEYS`,
      );
    }
  }
  if (!options.secretFile) {
    return;
  }
  const file = join(dir, SECRET_FILE);
  const secret = modeOf(file);
  if (secret !== undefined && secret & 0o006) {
    throw new ConfigError(
      `The approval secret ${quote(file)} is ${secret & 0o004 ? 'readable' : 'writable'} by every user of this machine (mode ${octal(secret)}), and anyone who reads or replaces it can forge approvals; ` +
        `run chmod 600 ${quote(file)} (the server creates it 0600), or set GSC_APPROVAL_SECRET`,
    );
  }
}

/** The permission bits, or undefined when the path does not exist yet (the store creates it, 0700 / 0600). */
function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
