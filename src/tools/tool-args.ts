import * as z from 'zod';

// Argument schemas shared by several tools. Descriptions are short on purpose:
// every character here is paid for in the model's context on every request.

// (No minLength: SiteAccessGuard answers an empty value with a sentence anyway.)
export const SiteUrlArg = z.string().describe('Property: "sc-domain:example.com" or "https://www.example.com/".');

export const PageUrlArg = z.string().describe('Full page URL.');

export const ConfirmTokenArg = z
  .string()
  .optional()
  .describe('The confirm_token a previous call returned, with otherwise identical arguments.');

export const NoArgs = z.object({});

/** Connected mode only (added to every tool that takes a property, page URL or resource id): which of the person's Google accounts to act as. */
export const GoogleAccountArg = z
  .string()
  .optional()
  .describe(
    'Connected Google account (its e-mail) to act as. Only needed when several of your accounts have the property; list_google_accounts shows them.',
  );

/** Connected mode only: what every answer of a property-, page- or resource-taking tool names (PRODUCT.md §8d). */
export const ActingAccountOut = z.string().optional().describe('The connected Google account the call acted as.');
export const ResolvedPropertyOut = z.string().optional().describe('The property the call resolved to.');
