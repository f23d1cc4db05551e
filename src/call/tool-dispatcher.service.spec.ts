import { describe, expect, it } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { namingOutput } from './acting-account.js';
import type { CallPipeline } from './pipeline.js';
import { ToolDispatcher } from './tool-dispatcher.service.js';
import type { CallContext } from '../tools/tool-call.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { RESULT_BUDGET_BYTES, toolOutput, type ToolOutput } from '../tools/tool-output.js';

/** The dispatcher over a pipeline that answers `output` (what the steps and the method would have made of the call). */
async function render(access: 'read' | 'write', output: ToolOutput): Promise<CallToolResult> {
  const pipeline = { run: () => Promise.resolve(output) } as unknown as CallPipeline;
  const tool = { spec: { name: 'list_sitemaps', access } } as unknown as RegisteredTool;
  return (await new ToolDispatcher(pipeline).dispatch(tool, {}, {} as CallContext)) as CallToolResult;
}

const big = () => toolOutput({ sitemaps: ['x'.repeat(RESULT_BUDGET_BYTES)] }, 'Sitemaps: many.');
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('ToolDispatcher: an answer over the result budget', () => {
  it('a read is replaced by a sentence that still names the Google account and the property it acted on', async () => {
    const result = await render('read', namingOutput(big(), 'ana@gmail.test', 'https://www.example.com/'));
    expect(result.isError).toBe(true);
    expect(text(result).split('\n')).toEqual([
      'As ana@gmail.test on https://www.example.com/:',
      expect.stringMatching(/^The result of list_sitemaps is larger than the 100 kB budget, so it is not shown\. Nothing was changed/),
    ]);
  });

  it('without a connected account (one credential) the sentence is alone', async () => {
    const result = await render('read', big());
    expect(text(result)).toMatch(/^The result of list_sitemaps is larger than/);
  });

  it('a write keeps its answer, cut, with the account line first', async () => {
    const result = await render('write', namingOutput(big(), 'ana@gmail.test', 'https://www.example.com/'));
    expect(result.isError).toBeUndefined();
    expect(text(result).split('\n')[0]).toBe('As ana@gmail.test on https://www.example.com/:');
  });
});
