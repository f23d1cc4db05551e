import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min, MinLength, validateSync } from 'class-validator';
import { ConfigError } from './config-error.js';

// Variables whose values must never appear in a message.
export const SECRET_VARIABLES = new Set([
  'GSC_SERVICE_ACCOUNT_KEY',
  'GSC_CLIENT_SECRET',
  'GSC_REFRESH_TOKEN',
  'GSC_HTTP_TOKEN',
  'GSC_ADMIN_TOKEN',
  'GSC_APPROVAL_SECRET',
]);

const lower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value);
const integer = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
const urlOptions = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * The scalar variables, checked with class-validator. Each message is the line
 * an operator sees, so it names the variable and its valid forms. Composite
 * variables (credentials, property lists, tool patterns) are parsed beside this.
 */
export class EnvironmentVariables {
  @IsOptional()
  @Transform(lower)
  @IsIn(['stdio', 'http'], { message: 'GSC_TRANSPORT must be stdio or http' })
  GSC_TRANSPORT?: 'stdio' | 'http';

  @IsOptional()
  @IsString()
  @MaxLength(253, { message: 'GSC_HTTP_HOST must be a host name or IP address such as 127.0.0.1' })
  GSC_HTTP_HOST?: string;

  @IsOptional()
  @Transform(integer)
  @IsInt({ message: 'GSC_HTTP_PORT must be an integer from 0 to 65535 (0 picks a free port)' })
  @Min(0, { message: 'GSC_HTTP_PORT must be an integer from 0 to 65535 (0 picks a free port)' })
  @Max(65535, { message: 'GSC_HTTP_PORT must be an integer from 0 to 65535 (0 picks a free port)' })
  GSC_HTTP_PORT?: number;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'GSC_HTTP_TOKEN must be at least 16 characters long; generate one with: openssl rand -hex 32' })
  GSC_HTTP_TOKEN?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'GSC_ADMIN_TOKEN must be at least 16 characters long; generate one with: openssl rand -hex 32' })
  GSC_ADMIN_TOKEN?: string;

  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value))
  @Min(32, { message: 'GSC_APPROVAL_SECRET must be at least 32 bytes long; generate one with: openssl rand -hex 32' })
  GSC_APPROVAL_SECRET?: number;

  @IsOptional()
  @Transform(lower)
  @IsIn(['true', 'false'], { message: 'GSC_READ_ONLY must be true or false' })
  GSC_READ_ONLY?: 'true' | 'false';

  @IsOptional()
  @Transform(lower)
  @IsIn(['true', 'false'], {
    message: 'ELICITATION must be true or false — anything else is refused so that a typo never leaves the approval dialog in a state you did not choose',
  })
  ELICITATION?: 'true' | 'false';

  @IsOptional()
  @IsUrl(urlOptions, { message: 'GSC_API_ROOT_URL must be an http(s) origin such as http://127.0.0.1:4000' })
  GSC_API_ROOT_URL?: string;

  @IsOptional()
  @IsUrl(urlOptions, { message: 'GSC_OAUTH_TOKEN_URL must be an http(s) URL such as http://127.0.0.1:4000/token' })
  GSC_OAUTH_TOKEN_URL?: string;
}

/** Reads a variable; empty or whitespace-only counts as unset. */
export function readVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const plain: Record<string, string> = {};
  for (const name of Object.keys(new EnvironmentVariablesKeys())) {
    const value = readVar(env, name);
    if (value !== undefined) plain[name] = value;
  }
  const parsed = plainToInstance(EnvironmentVariables, plain);
  const [first] = validateSync(parsed, { forbidUnknownValues: false });
  if (first) {
    const message = Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`;
    const shown = SECRET_VARIABLES.has(first.property) ? '' : ` (got "${plain[first.property]}")`;
    throw new ConfigError(`${message}${shown}`);
  }
  return parsed;
}

// class-validator cannot enumerate optional properties of an empty instance, so
// the keys are listed once here and checked against the class by the compiler.
class EnvironmentVariablesKeys implements Record<keyof EnvironmentVariables, true> {
  GSC_TRANSPORT = true as const;
  GSC_HTTP_HOST = true as const;
  GSC_HTTP_PORT = true as const;
  GSC_HTTP_TOKEN = true as const;
  GSC_ADMIN_TOKEN = true as const;
  GSC_APPROVAL_SECRET = true as const;
  GSC_READ_ONLY = true as const;
  ELICITATION = true as const;
  GSC_API_ROOT_URL = true as const;
  GSC_OAUTH_TOKEN_URL = true as const;
}
