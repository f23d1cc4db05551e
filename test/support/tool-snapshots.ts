import { expect } from '@jest/globals';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One pinned file per tool (test/__snapshots__/tools/<name>.json): a change to
 * one tool's description or schema is a diff of that tool's file alone, read
 * and reviewed like any other. Follows jest's own snapshot rules: `-u` rewrites
 * what changed and removes the files of tools that are gone; without it a
 * difference fails; `--ci` never writes a missing one.
 */
export const TOOL_SNAPSHOTS = join(import.meta.dirname, '..', '__snapshots__', 'tools');

type Mode = 'all' | 'new' | 'none';

function updateMode(): Mode {
  // Jest's SnapshotState: 'all' under -u, 'none' under --ci, 'new' otherwise.
  return (expect.getState() as unknown as { snapshotState: { _updateSnapshot: Mode } }).snapshotState._updateSnapshot;
}

export function serialise(tool: unknown): string {
  return `${JSON.stringify(tool, null, 2)}\n`;
}

/** The pinned text of one tool, written first when the mode allows; undefined when there is none and it may not be written. */
export function expectToolSnapshot(tool: { name: string }): void {
  const file = join(TOOL_SNAPSHOTS, `${tool.name}.json`);
  const text = serialise(tool);
  const mode = updateMode();
  if (!existsSync(file) || (mode === 'all' && readFileSync(file, 'utf8') !== text)) {
    if (mode === 'none') {
      throw new Error(`${file} is missing: run the spec once without --ci (or with -u) to write it, and review it`);
    }
    mkdirSync(TOOL_SNAPSHOTS, { recursive: true });
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
}

/** The pinned files of tools that are not listed any more: removed under -u, a failure otherwise. */
export function expectNoStaleToolSnapshots(names: readonly string[]): void {
  const stale = existsSync(TOOL_SNAPSHOTS)
    ? readdirSync(TOOL_SNAPSHOTS).filter((f) => f.endsWith('.json') && !names.includes(f.slice(0, -'.json'.length)))
    : [];
  if (updateMode() === 'all') {
    stale.forEach((f) => rmSync(join(TOOL_SNAPSHOTS, f)));
    return;
  }
  expect(stale).toEqual([]);
}
