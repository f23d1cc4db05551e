import { createRequire } from 'node:module';
import type * as ClassValidator from 'class-validator';

// Loaded by require() for the reason audit-query.dto.ts gives: class-validator
// must not be paid for by a stdio start.
const { IsOptional, IsString, MaxLength, MinLength } = createRequire(import.meta.url)('class-validator') as typeof ClassValidator;

const PROPERTY = 'property must be one property, spelled as Search Console does (sc-domain:example.com or https://www.example.com/)';

/** Query parameters of GET <admin>/quota, validated by Nest's ValidationPipe (unknown parameters are refused). */
export class QuotaQueryDto {
  @IsOptional()
  @IsString({ message: PROPERTY })
  @MinLength(1, { message: PROPERTY })
  @MaxLength(512, { message: PROPERTY })
  property?: string;
}
