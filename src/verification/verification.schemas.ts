import * as z from 'zod';
import { RECORD_TYPES, VERIFICATION_METHODS } from './verification-methods.js';

// Output schemas shared with setup_site in the sites module.

export const MethodOut = z.enum(VERIFICATION_METHODS);

export const RecordOut = z.object({
  type: z.enum(RECORD_TYPES),
  name: z.string().optional().describe('DNS: fully qualified record name (TXT: the apex). FILE: the file name.'),
  value: z.string().describe('TXT/CNAME value, the whole <meta> tag, or the exact file content.'),
  location: z.string().describe('Where to place it.'),
});
