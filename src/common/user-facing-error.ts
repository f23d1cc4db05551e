/**
 * An expected failure whose message is already a sentence for the model: what
 * failed, why, what to do next, and whether anything changed. Services, guards
 * and interceptors throw it; the MCP dispatcher returns it as an isError result.
 * It lives outside the MCP layer so that domain services can throw it too.
 */
export class UserFacingError extends Error {
  override readonly name = 'UserFacingError';
}
