import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  Module,
  type NestInterceptor,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, ExternalContextCreator, NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { map, tap, type Observable } from 'rxjs';
import { toolPipeline, type WrapToolMethod } from './pipeline.js';

// A host application as a company would write it: a global auth guard that
// refuses anything without an Authorization header, and a global interceptor
// that wraps every answer. Neither may run around a tool call.

const log: string[] = [];
let refuse = false;

@Injectable()
class PolicyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const [args, call] = context.getArgs<[{ n: number }, { id: string }]>();
    log.push(`policy guard (${context.getType()}, n=${args.n}, call=${call.id})`);
    if (refuse) {
      throw new Error('refused by the policy guard');
    }
    return true;
  }
}

@Injectable()
class PolicyInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    log.push('policy interceptor: before');
    return next.handle().pipe(tap(() => log.push('policy interceptor: after')));
  }
}

@Injectable()
class ToolClassGuard implements CanActivate {
  canActivate(): boolean {
    log.push('tool class guard');
    return true;
  }
}

@Injectable()
class HostAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    log.push('host guard');
    // What a host's HTTP guard does with a tool call: there is no request, so it refuses.
    const request = context.switchToHttp().getRequest<{ headers?: Record<string, string> } | undefined>();
    if (!request?.headers?.authorization) {
      throw new ForbiddenException('no session');
    }
    return true;
  }
}

@Injectable()
class HostWrapInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    log.push('host interceptor');
    return next.handle().pipe(map((data) => ({ data })));
  }
}

@Injectable()
@UseGuards(ToolClassGuard)
class Tools {
  async run(args: { n: number }, call: { id: string }): Promise<{ doubled: number; call: string }> {
    log.push('method');
    return { doubled: args.n * 2, call: call.id };
  }
}

@Module({
  providers: [
    Tools,
    PolicyGuard,
    PolicyInterceptor,
    ToolClassGuard,
    { provide: APP_GUARD, useClass: HostAuthGuard },
    { provide: APP_INTERCEPTOR, useClass: HostWrapInterceptor },
  ],
})
class HostModule {}

describe('toolPipeline', () => {
  let app: INestApplicationContext;
  let wrap: WrapToolMethod;
  let tools: Tools;

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(HostModule, { logger: false });
    tools = app.get(Tools);
    wrap = toolPipeline(app.get(ExternalContextCreator), { guards: [app.get(PolicyGuard)], interceptors: [app.get(PolicyInterceptor)] });
  });
  afterAll(() => app.close());
  beforeEach(() => {
    log.length = 0;
    refuse = false;
  });

  it('runs our guard, then the tool class’s own guard, then our interceptor around the method, with (args, call) as given', async () => {
    const result = await wrap(tools, 'run')({ n: 21 }, { id: 'call-1' });
    expect(result).toEqual({ doubled: 42, call: 'call-1' });
    expect(log).toEqual([
      'policy guard (mcp, n=21, call=call-1)',
      'tool class guard',
      'policy interceptor: before',
      'method',
      'policy interceptor: after',
    ]);
  });

  it('never runs the host app’s global guard or interceptor around a tool (the answer is the method’s own, unwrapped)', async () => {
    await wrap(tools, 'run')({ n: 1 }, { id: 'call-2' });
    expect(log).not.toContain('host guard');
    expect(log).not.toContain('host interceptor');
  });

  it('a guard that refuses stops the call before any interceptor or the method, and its error reaches the caller as thrown', async () => {
    refuse = true;
    await expect(wrap(tools, 'run')({ n: 1 }, { id: 'call-3' })).rejects.toThrow('refused by the policy guard');
    expect(log).toEqual(['policy guard (mcp, n=1, call=call-3)']);
  });

  it('control: Nest’s own creator in the same app does run the host guard, which refuses a tool call', async () => {
    const nest = app.get(ExternalContextCreator);
    const invoke = nest.create(
      tools,
      tools.run.bind(tools) as (...args: unknown[]) => unknown,
      'run',
      undefined,
      undefined,
      undefined,
      undefined,
      { guards: true, interceptors: true, filters: false },
      'mcp',
    );
    await expect(invoke({ n: 1 }, { id: 'call-4' })).rejects.toThrow(ForbiddenException);
    expect(log).toContain('host guard');
    expect(log).not.toContain('method');
  });
});
