import { describe, expect, it } from '@jest/globals';
import { parseToolPatterns } from './tool-patterns.js';

// The GSC_ALLOW_TOOLS / GSC_DENY_TOOLS (and policy "tools") entry format; what the patterns select is policy/tool-selection.spec.ts.
describe('parseToolPatterns', () => {
  it.each(['*_sites', 'list_*_x', 'li*st', '**', 'list sites'])('refuses %s', (p) => {
    expect(() => parseToolPatterns('GSC_ALLOW_TOOLS', p)).toThrow(/not a valid pattern/);
  });
  it('accepts exact, prefix, essential and ignores empty entries', () => {
    expect(parseToolPatterns('GSC_ALLOW_TOOLS', ' list_*, , get_site,ESSENTIAL ')?.map((p) => p.kind)).toEqual([
      'prefix',
      'exact',
      'essential',
    ]);
  });
});
