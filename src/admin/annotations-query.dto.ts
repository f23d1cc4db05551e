import { createRequire } from 'node:module';
import type * as ClassValidator from 'class-validator';

// Loaded by require() for the reason audit-query.dto.ts gives: class-validator
// must not be paid for by a stdio start.
const { IsOptional, Matches, MaxLength, MinLength } = createRequire(import.meta.url)('class-validator') as typeof ClassValidator;

const PROPERTY = 'property must be one property, spelled as Search Console does (sc-domain:example.com or https://www.example.com/)';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Query parameters of GET <admin>/annotations, validated by Nest's ValidationPipe (unknown parameters are refused). */
export class AnnotationsQueryDto {
  @IsOptional()
  @MinLength(1, { message: PROPERTY })
  @MaxLength(512, { message: PROPERTY })
  property?: string;

  @IsOptional()
  @Matches(DATE, { message: 'start_date must be a date, YYYY-MM-DD' })
  start_date?: string;

  @IsOptional()
  @Matches(DATE, { message: 'end_date must be a date, YYYY-MM-DD' })
  end_date?: string;
}
