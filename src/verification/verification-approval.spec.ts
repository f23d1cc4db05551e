import { describe, expect, it } from '@jest/globals';
import { dialogMessage } from '../call/approval/approval-dialog.js';
import { effectFingerprint } from '../tools/approval-plan.js';
import { TOOL_METADATA } from '../tools/tool.decorator.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import type { VerifiedResource } from '../property/verification-resource.js';
import { VerificationTools } from './verification.tools.js';

// What the person is asked before update_site_owners and unverify_site run:
// the Google account that acts is quoted, and when the new owner list leaves
// that account out, the question says it removes itself.

function describer(method: 'updateSiteOwners' | 'unverifySite') {
  // The declaration @Tool stored on the method (read, never called here).
  const declared: unknown = Object.getOwnPropertyDescriptor(VerificationTools.prototype, method)?.value;
  const spec = Reflect.getMetadata(TOOL_METADATA, declared as object) as ToolSpec;
  return spec.approval! as (
    args: Record<string, unknown>,
    target: { resource: VerifiedResource },
    actor?: string,
  ) => ReturnType<NonNullable<ToolSpec['approval']>>;
}

const resource: VerifiedResource = {
  id: 'https%3A%2F%2Fwww.example.com%2F',
  type: 'SITE',
  identifier: 'https://www.example.com/',
  property: 'https://www.example.com/',
  owners: ['owner@example.com', 'alice@example.com'],
};

describe('the approval questions of the Site Verification tools', () => {
  it('update_site_owners that leaves out the acting account says it removes itself, in the quoted data and its cost sentence', () => {
    const plan = describer('updateSiteOwners')({ id: resource.id, owners: ['owner@example.com'] }, { resource }, 'Alice@example.com');
    const dialog = dialogMessage(plan);
    expect(dialog).toMatch(
      /^This will replace the owner list of https:\/\/www\.example\.com\/\. Everyone not in the new list loses ownership — the Google account making the change among them/,
    );
    expect(dialog).toContain('- Google account making the change: "Alice@example.com"');
    expect(dialog).toContain('- Losing its own ownership: the Google account making the change: "Alice@example.com"');
    // Kept: an account that stays an owner is not said to lose anything.
    const keeps = dialogMessage(
      describer('updateSiteOwners')(
        { id: resource.id, owners: ['owner@example.com', 'alice@example.com'] },
        { resource },
        'alice@example.com',
      ),
    );
    expect(keeps).not.toMatch(/Losing its own ownership|among them/);
    expect(keeps).toContain('- Google account making the change: "alice@example.com"');
  });

  it('the acting account is bound: an approval for one account is not the effect of the same change as another', () => {
    const update = describer('updateSiteOwners');
    const args = { id: resource.id, owners: ['owner@example.com', 'alice@example.com'] };
    expect(effectFingerprint(update(args, { resource }, 'alice@example.com'))).not.toBe(
      effectFingerprint(update(args, { resource }, 'bob@example.net')),
    );
    const unverify = describer('unverifySite');
    expect(effectFingerprint(unverify({ id: resource.id }, { resource }, 'alice@example.com'))).not.toBe(
      effectFingerprint(unverify({ id: resource.id }, { resource }, 'bob@example.net')),
    );
  });

  it('without a known acting identity (an OAuth refresh token) nothing is claimed about it', () => {
    const dialog = dialogMessage(describer('unverifySite')({ id: resource.id }, { resource }));
    expect(dialog).not.toMatch(/Google account making the change/);
    expect(dialog).toContain(`- Resource id: "${resource.id}"`);
  });
});
