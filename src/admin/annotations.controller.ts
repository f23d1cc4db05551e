import { Controller, Delete, Get, HttpStatus, Param, Query, Res, UseGuards, ValidationPipe } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { type Annotation, AnnotationsService, isCalendarDate } from '../annotations/annotations.service.js';
import { escapeInvisible } from '../common/inert-text.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import { parseAnnotationId } from '../property/annotation-id.js';
import { normalizeProperty, PropertyError } from '../property/property.js';
import { ADMIN_ACTOR } from './accounts.controller.js';
import { AdminAccessGuard } from './admin-access.guard.js';
import { refuse, unavailable } from './admin-replies.js';
import { AdminRoute } from './admin-route.decorator.js';
import { AnnotationsQueryDto } from './annotations-query.dto.js';

/** An annotation as ops see it: every field, private notes included; text and tag with invisible characters escaped. */
function opsView(a: Annotation) {
  return {
    id: a.id,
    property: a.site,
    date: a.date,
    text: escapeInvisible(a.text),
    ...(a.tag ? { tag: escapeInvisible(a.tag) } : {}),
    author: a.author,
    private: a.private ?? false,
    created_at: a.created_at,
  };
}

/**
 * GET <admin path>/annotations and DELETE <admin path>/annotations/{id}
 * (PRODUCT.md §5e): the team annotations of every property, private notes
 * included (no caller's allowlist or rule narrows this: it is the operator's
 * view), and ops deleting one — the "admin" of annotations for anyone holding
 * the admin token (GSC_ADMIN_TOKEN, or loopback when it is unset), audited.
 */
@Controller()
@UseGuards(AdminAccessGuard)
export class AnnotationsController {
  constructor(
    private readonly annotations: AnnotationsService,
    private readonly audit: AuditTrail,
  ) {}

  @Get('annotations')
  @AdminRoute({
    summary:
      "Team annotations (this server's own notes on properties' days; private ones included), by property, then date; filters: property, start_date, end_date (inclusive)",
    responses: { 400: 'A query parameter is not valid', 503: 'The state store cannot be reached' },
  })
  async list(
    @Res({ passthrough: true }) res: ServerResponse,
    @Query(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true })) query: AnnotationsQueryDto,
  ) {
    let property: string | undefined;
    try {
      property = query.property === undefined ? undefined : normalizeProperty(query.property);
    } catch (error) {
      if (error instanceof PropertyError) {
        return refuse(res, HttpStatus.BAD_REQUEST, `property is not a property: ${error.message}`);
      }
      throw error;
    }
    for (const name of ['start_date', 'end_date'] as const) {
      const value = query[name];
      if (value !== undefined && !isCalendarDate(value)) {
        return refuse(res, HttpStatus.BAD_REQUEST, `${name} ${value} is not a calendar date (YYYY-MM-DD)`);
      }
    }
    if (query.start_date && query.end_date && query.end_date < query.start_date) {
      return refuse(res, HttpStatus.BAD_REQUEST, `end_date ${query.end_date} is before start_date ${query.start_date}`);
    }
    try {
      const properties = property ? [property] : await this.annotations.properties();
      const window = { start: query.start_date, end: query.end_date };
      const annotations = (await Promise.all(properties.map((p) => this.annotations.list(p, window)))).flat().map(opsView);
      return { annotations, count: annotations.length };
    } catch (error) {
      return unavailable(res, error);
    }
  }

  @Delete('annotations/:id')
  @AdminRoute({
    summary:
      'Deletes one annotation, whoever wrote it (id as list shows it, percent-encoded in the path, e.g. 1767225600000-0%40sc-domain%3Aexample.com); audited as annotation_deleted by admin',
    responses: {
      400: 'Not an annotation id',
      404: 'No such annotation (deleted already, or dropped as the oldest past 200)',
      503: 'The state store cannot be reached',
    },
  })
  async remove(@Param('id') id: string, @Res({ passthrough: true }) res: ServerResponse) {
    const ref = parseAnnotationId(id);
    if (!ref) {
      return refuse(
        res,
        HttpStatus.BAD_REQUEST,
        `${JSON.stringify(escapeInvisible(id.slice(0, 200)))} is not an annotation id; ids look like 1767225600000-0@sc-domain:example.com (GET annotations lists them)`,
      );
    }
    try {
      const note = await this.annotations.find(ref);
      if (!note || !(await this.annotations.remove(ref))) {
        return refuse(
          res,
          HttpStatus.NOT_FOUND,
          `${ref.site} has no annotation ${ref.id} (deleted already, or dropped as the oldest past 200), so nothing was changed`,
        );
      }
      await this.audit.record({
        event: 'annotation_deleted',
        tool: 'DELETE /admin/annotations',
        principal: ADMIN_ACTOR,
        target_principal: note.author,
      });
      return { status: 'ok', deleted: opsView(note), message: `Deleted annotation ${ref.id} of ${ref.site}, written by ${note.author}.` };
    } catch (error) {
      return unavailable(res, error);
    }
  }
}
