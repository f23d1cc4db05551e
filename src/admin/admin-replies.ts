import { HttpStatus } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { StateUnavailableError } from '../state/state-store.js';

/** An operations route's refusal: the status, and `{status: "error", reason}` as the body. */
export function refuse(res: ServerResponse, status: HttpStatus, reason: string) {
  res.statusCode = status;
  return { status: 'error', reason };
}

/** A state store that cannot be reached is a 503 naming it; anything else is rethrown (a bug, Nest's 500). */
export function unavailable(res: ServerResponse, error: unknown) {
  if (!(error instanceof StateUnavailableError)) {
    throw error;
  }
  return refuse(res, HttpStatus.SERVICE_UNAVAILABLE, error.message);
}
