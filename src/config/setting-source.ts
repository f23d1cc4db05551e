import { ConfigError } from './config-error.js';
import { quote } from './quote.js';
import { closestSetting, SETTING_NAMES, type SettingName, type SettingSpec, settingSpec, SETTINGS } from './settings-table.js';

/** Machine lookups that are not settings: where gcloud keeps its login, where the user's state folder is. */
export interface Ambient {
  readonly CLOUDSDK_CONFIG?: string;
  readonly APPDATA?: string;
  readonly XDG_STATE_HOME?: string;
  readonly HOME?: string;
  /** Whether a gcloud application-default login on this machine may be used. */
  readonly gcloud: boolean;
}

/**
 * The settings of one load, whatever they came from: each value trimmed, an
 * empty or whitespace-only one counted as unset. The loader reads nothing else.
 */
export class SettingSource {
  constructor(
    private readonly values: ReadonlyMap<SettingName, string>,
    readonly ambient: Ambient,
  ) {}

  get(name: SettingName): string | undefined {
    return this.values.get(name);
  }

  has(name: SettingName): boolean {
    return this.values.has(name);
  }

  /** The values of the secret settings, so a message can never carry one. */
  secretValues(): string[] {
    return SETTINGS.filter((s: SettingSpec) => s.secret)
      .map((s) => this.values.get(s.name))
      .filter((v): v is string => v !== undefined);
  }
}

/** The settings as environment variables. */
export function fromEnvironment(env: NodeJS.ProcessEnv): SettingSource {
  const values = new Map<SettingName, string>();
  for (const name of SETTING_NAMES) {
    const value = trimmed(env[name]);
    if (value !== undefined) {
      values.set(name, value);
    }
  }
  return new SettingSource(values, ambientFrom(env));
}

/**
 * The settings as an object (the embedded module's `settings`): the table's
 * names; lists as arrays or comma strings, booleans as booleans or strings,
 * numbers as numbers or strings, the key as its JSON text or the parsed object.
 * Machine lookups come from `env` only when the caller passes it; without it
 * no gcloud login is probed.
 */
export function fromSettingsObject(settings: unknown, env?: NodeJS.ProcessEnv): SettingSource {
  if (!settings || typeof settings !== 'object' || Array.isArray(settings)) {
    throw new ConfigError(
      `settings must be an object whose keys are the configuration variables (such as GSC_SERVICE_ACCOUNT_KEY_FILE), got ${typeName(settings)}`,
    );
  }
  const values = new Map<SettingName, string>();
  for (const [key, raw] of Object.entries(settings as Record<string, unknown>)) {
    const spec = settingSpec(key);
    if (!spec) {
      throw unknownSetting(key);
    }
    const value = coerce(spec, raw);
    if (value !== undefined) {
      values.set(spec.name as SettingName, value);
    }
  }
  return new SettingSource(values, env ? ambientFrom(env) : { gcloud: false });
}

function unknownSetting(key: string): ConfigError {
  const near = closestSetting(key);
  return new ConfigError(
    `unknown setting ${quote(key)}${near ? ` — did you mean ${near}?` : ''}; the settings are the configuration variables: ${SETTING_NAMES.join(', ')}`,
  );
}

function coerce(spec: SettingSpec, raw: unknown): string | undefined {
  if (raw === undefined || raw === null) {
    return undefined;
  }
  if (typeof raw === 'string') {
    return trimmed(raw);
  }
  switch (spec.kind) {
    case 'boolean':
      if (typeof raw === 'boolean') {
        return String(raw);
      }
      throw new ConfigError(`${spec.name} must be true or false (a boolean or the string "true"/"false"), got ${typeName(raw)}`);
    case 'integer':
      if (typeof raw === 'number' && Number.isFinite(raw)) {
        return String(raw);
      }
      throw new ConfigError(`${spec.name} must be an integer (a number or a string of digits), got ${typeName(raw)}`);
    case 'list':
      return listValue(spec.name, raw);
    case 'key':
      if (isPlainObject(raw)) {
        return JSON.stringify(raw);
      }
      throw new ConfigError(
        `${spec.name} must be the key file's JSON text, its base64 encoding, or the parsed key object, got ${typeName(raw)}`,
      );
    default:
      throw new ConfigError(`${spec.name} must be a string, got ${typeName(raw)}`);
  }
}

// An empty array would read as "unset", which for an allowlist means "everything":
// the opposite of what an empty list of allowed things says.
const EMPTY_MEANS_ALL = new Set(['GSC_ALLOWED_SITES', 'GSC_ALLOW_TOOLS']);

function listValue(name: string, raw: unknown): string | undefined {
  if (!Array.isArray(raw)) {
    throw new ConfigError(`${name} must be an array of strings or a comma-separated string, got ${typeName(raw)}`);
  }
  const entries = raw.map((entry, i) => {
    if (typeof entry !== 'string') {
      throw new ConfigError(`${name}[${i}] must be a string, got ${typeName(entry)}`);
    }
    if (entry.includes(',')) {
      throw new ConfigError(`${name}[${i}] ${quote(entry)} contains a comma; give each entry as its own array element`);
    }
    return entry.trim();
  });
  if (entries.every((e) => !e)) {
    if (EMPTY_MEANS_ALL.has(name)) {
      throw new ConfigError(
        `${name} is an empty list, which would mean "no restriction"; leave ${name} out for that, or name at least one entry`,
      );
    }
    return undefined;
  }
  return entries.join(',');
}

function ambientFrom(env: NodeJS.ProcessEnv): Ambient {
  return {
    CLOUDSDK_CONFIG: trimmed(env.CLOUDSDK_CONFIG),
    APPDATA: trimmed(env.APPDATA),
    XDG_STATE_HOME: trimmed(env.XDG_STATE_HOME),
    HOME: trimmed(env.HOME),
    gcloud: true,
  };
}

function trimmed(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

// Names the type, never the content: a settings object can hold secrets anywhere.
function typeName(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  if (typeof value === 'object') {
    return 'an object';
  }
  return `a ${typeof value}`;
}
