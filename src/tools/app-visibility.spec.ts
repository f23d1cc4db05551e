import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { assertAppVisibility, toolUiMeta } from './app-visibility.js';
import type { ToolSpec } from './tool-spec.js';

const spec = (over: Partial<ToolSpec>): ToolSpec => ({
  name: 't',
  title: 'T',
  description: 'T.',
  input: z.object({}),
  output: z.object({}),
  access: 'read',
  apis: ['searchconsole'],
  ...over,
});

describe('MCP Apps visibility of tools', () => {
  it('declares nothing for a plain read tool (the default: model and app)', () => {
    expect(toolUiMeta(spec({}))).toBeUndefined();
  });

  it("keeps every write and destructive tool the model's only, a linked view included", () => {
    expect(toolUiMeta(spec({ access: 'write' }))).toEqual({ ui: { visibility: ['model'] } });
    expect(toolUiMeta(spec({ access: 'destructive', view: 'ui://x/v.html' }))).toEqual({
      ui: { visibility: ['model'], resourceUri: 'ui://x/v.html' },
    });
  });

  it('marks an app-only tool for the app alone, and links a read tool to its view', () => {
    expect(toolUiMeta(spec({ appOnlyFor: 'other' }))).toEqual({ ui: { visibility: ['app'] } });
    expect(toolUiMeta(spec({ view: 'ui://x/v.html' }))).toEqual({ ui: { resourceUri: 'ui://x/v.html' } });
  });

  it('refuses at start-up an app-only tool that writes, and a view that is not a ui:// resource', () => {
    expect(() => assertAppVisibility(spec({ access: 'write', appOnlyFor: 'other' }))).toThrow(/only read tools may be called by a view/);
    expect(() => assertAppVisibility(spec({ access: 'destructive', appOnlyFor: 'other' }))).toThrow(/app-only but destructive/);
    expect(() => assertAppVisibility(spec({ view: 'https://example.com/v.html' }))).toThrow(/not a ui:\/\/ resource/);
    expect(() => assertAppVisibility(spec({ access: 'write' }))).not.toThrow();
  });
});
