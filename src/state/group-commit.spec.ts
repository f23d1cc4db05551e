import { describe, expect, it } from '@jest/globals';
import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('commits what is added in one turn of the event loop in one call, and answers each caller with its own result', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, string>((items) => {
      batches.push([...items]);
      return items.map((n) => `r${n}`);
    });
    const first = await Promise.all([group.add(1), group.add(2), group.add(3)]);
    const later = await group.add(4);
    expect(first).toEqual(['r1', 'r2', 'r3']);
    expect(later).toBe('r4');
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('rejects every caller of a batch whose commit throws, and commits the next batch afresh', async () => {
    let fail = true;
    const group = new GroupCommit<number, number>((items) => {
      if (fail) {
        throw new Error('disk full');
      }
      return items.map((n) => n * 10);
    });
    const failed = await Promise.allSettled([group.add(1), group.add(2)]);
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['disk full', 'disk full']);
    fail = false;
    expect(await group.add(3)).toBe(30);
  });
});
