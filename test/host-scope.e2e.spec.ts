import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type DynamicModule, Inject, Injectable, type InjectionToken, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Clock } from '../src/common/clock.js';
import { OBSERVER } from '../src/common/observer.js';
import { CONFIG } from '../src/config/config.js';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { STATE_STORE } from '../src/state/state.module.js';
import { isolatedEnv } from './support/env.js';
import { startGoogle, type TestGoogle } from './support/google.js';

// Issue 18 item 9: the module puts nothing into a host app's scope. Its configuration,
// clock, state store and metrics observer are shared through ModuleGraph, not @Global,
// so a provider of the company's own that asks for one of them is a Nest error.

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google?.emulator.close());

/** A host module around SearchConsoleMcpModule, with one provider of its own that injects `token`. */
function hostWanting(token: InjectionToken | undefined): DynamicModule {
  @Injectable()
  class CompanyService {
    constructor(@Inject(token ?? 'COMPANY_NAME') readonly value: unknown) {}
  }
  @Module({})
  class HostModule {}
  return {
    module: HostModule,
    imports: [
      SearchConsoleMcpModule.forRoot({
        settings: { GSC_API_ROOT_URL: google.env.GSC_API_ROOT_URL, GSC_STATE_DIR: isolatedEnv().GSC_STATE_DIR },
        metrics: { path: 'metrics' },
      }),
    ],
    providers: [CompanyService, { provide: 'COMPANY_NAME', useValue: 'corp' }],
  };
}

describe('SearchConsoleMcpModule inside a host app', () => {
  it('boots beside a provider of the host that injects only the host’s own values', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [hostWanting(undefined)] }).compile();
    await moduleRef.close();
  });

  it.each([
    ['CONFIG', CONFIG],
    ['STATE_STORE', STATE_STORE],
    ['OBSERVER', OBSERVER],
    ['Clock', Clock],
  ])('does not hand %s to the host’s own providers', async (_name, token) => {
    await expect(Test.createTestingModule({ imports: [hostWanting(token)] }).compile()).rejects.toThrow(
      /can't resolve dependencies of the CompanyService/,
    );
  });
});
