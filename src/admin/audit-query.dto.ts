import { createRequire } from 'node:module';
import type * as ClassValidator from 'class-validator';
import { AUDIT_EVENTS, type AuditEvent } from '../call/approval/audit-trail.service.js';

// class-validator takes ~110 ms to load, and only the HTTP server has an admin
// API. A static import would be hoisted to the top of the one-file bundle and
// paid by every stdio start; require() runs when this module is evaluated,
// which only the admin controller causes. It is the same CommonJS copy that
// Nest's ValidationPipe requires, so both see the same decorator metadata.
const { IsIn, IsInt, IsOptional, Matches, Max, MaxLength, Min } = createRequire(import.meta.url)(
  'class-validator',
) as typeof ClassValidator;

/** Query parameters of GET /admin/audit, validated by Nest's ValidationPipe (unknown parameters are refused). */
export class AuditQueryDto {
  @IsOptional()
  @IsInt({ message: 'limit must be a whole number from 1 to 500' })
  @Min(1, { message: 'limit must be a whole number from 1 to 500' })
  @Max(500, { message: 'limit must be a whole number from 1 to 500' })
  limit?: number;

  @IsOptional()
  @Matches(/^\d{1,15}-\d{1,15}$/, {
    message: 'before must be the id of an audit entry, such as 1767225600000-0 (the next_before of a previous page)',
  })
  before?: string;

  @IsOptional()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'tool must be a tool name such as delete_site' })
  tool?: string;

  @IsOptional()
  @IsIn(AUDIT_EVENTS, { message: `outcome must be one of ${AUDIT_EVENTS.join(', ')}` })
  outcome?: AuditEvent;

  @IsOptional()
  @MaxLength(320, { message: 'principal must be at most 320 characters' })
  principal?: string;
}
