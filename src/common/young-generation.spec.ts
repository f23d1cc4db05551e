import { describe, expect, it } from '@jest/globals';
import { youngGenerationSized } from './young-generation.js';

describe('youngGenerationSized', () => {
  it('leaves the young generation to node flags or NODE_OPTIONS that size it', () => {
    expect(youngGenerationSized(['--max-semi-space-size=16'])).toBe(true);
    expect(youngGenerationSized(['--max_semi_space_size=8'])).toBe(true);
    expect(youngGenerationSized([], '--enable-source-maps --max-heap-size=512')).toBe(true);
    expect(youngGenerationSized([], '--semi-space-growth-factor=1')).toBe(true);
  });

  it('caps it when nothing sizes it, as under `node dist/main.js`', () => {
    expect(youngGenerationSized([])).toBe(false);
    expect(youngGenerationSized(['--enable-source-maps'], '--max-old-space-size=4096')).toBe(false);
  });
});
