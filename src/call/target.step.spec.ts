import { describe, expect, it } from '@jest/globals';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { lastValueFrom, of } from 'rxjs';
import type { Config } from '../config/config.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { ToolCall } from '../tools/tool-call.js';
import { TargetStep } from './target.step.js';

const tool = { spec: { name: 'get_site', access: 'read', apis: ['searchconsole'], target: ['site'] } } as unknown as RegisteredTool;
const callOf = () =>
  new ToolCall(tool, {
    era: 'modern',
    sdk: { mcpReq: {} } as ServerContext,
    server: {} as McpServer,
    caller: { principal: 'ann@corp.example', groups: [] },
    access: { rule: undefined, decidedBy: 'server', annotations: 'shared', tools: new Set(['get_site']), sites: ['sc-domain:example.com'] },
  });

describe('TargetStep', () => {
  it('settles the parsed target in the frozen scope, then hands on; nothing is refused here', async () => {
    const step = new TargetStep({ siteUrl: 'sc-domain:example.com' } as Config);
    const call = callOf();
    const out = await lastValueFrom(step.intercept(new ExecutionContextHost([{}, call]), { handle: () => of('ran') }));
    expect(out).toBe('ran');
    expect(call.scope.target?.site).toEqual({ value: 'sc-domain:example.com' });
    expect(Object.isFrozen(call.scope)).toBe(true);

    const refused = callOf();
    await lastValueFrom(
      step.intercept(new ExecutionContextHost([{ site_url: 'sc-domain:other.org' }, refused]), { handle: () => of('ran') }),
    );
    expect(refused.scope.target?.site?.refusal).toContain('outside');
    expect(refused.scope.target?.subject).toEqual({ kind: 'refused' });
  });

  it('settles a target once: a second parse of the same call is a programming error', () => {
    const step = new TargetStep({} as Config);
    const call = callOf();
    step.settle({ site_url: 'sc-domain:example.com' }, call);
    expect(() => step.settle({ site_url: 'sc-domain:example.com' }, call)).toThrow('settled once');
  });
});
