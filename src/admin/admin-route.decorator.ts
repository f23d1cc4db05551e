import { SetMetadata } from '@nestjs/common';

/** What an operations route is for, in the OpenAPI document generated from the controllers at build time (scripts/openapi.mjs). */
export interface AdminRouteDoc {
  readonly summary: string;
  readonly description?: string;
  /** Status codes besides 200 the route answers with, and what they mean. */
  readonly responses?: Readonly<Record<number, string>>;
}

export const ADMIN_ROUTE = 'gsc:admin-route';

/** Documents an operations route; zero cost at run time (plain metadata, read only by the build). */
export const AdminRoute = (doc: AdminRouteDoc) => SetMetadata(ADMIN_ROUTE, doc);
