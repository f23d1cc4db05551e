import * as z from 'zod';

/** Fields every guarded tool's structured result carries, whatever happened. */
export const GUARDED_OUTPUT = z.object({
  executed: z.boolean().describe('Whether the change was sent to Google.'),
  outcome: z.enum(['executed', 'declined', 'cancelled', 'token_issued', 'token_rejected']),
  confirm_token: z
    .string()
    .optional()
    .describe('Two-call fallback: pass this back as confirm_token, with identical arguments, to proceed.'),
  expires_at: z.string().optional().describe('When confirm_token expires (ISO 8601).'),
});
