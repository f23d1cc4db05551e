import { type DynamicModule, Module } from '@nestjs/common';
import { ConnectedAccounts } from '../google/connected-accounts.js';
import { ConnectFlow } from './connect-flow.service.js';
import { ConnectRequests } from './connect-requests.js';
import { GrantAuth } from './grant-auth.service.js';
import { GrantRevocation } from './grant-revocation.js';
import { GrantStore } from './grant-store.js';

type Imports = NonNullable<DynamicModule['imports']>;

/**
 * Connected accounts (PRODUCT.md §8d): grants at rest, the Google client acting
 * as a principal, connect requests and the connect flow (the pages are mounted
 * by the HTTP module, or served on loopback by stdio). One instance per graph, among the
 * shared modules (it needs only configuration and the state store), so that
 * GoogleAuthService and the MCP dispatcher see the same ConnectedAccounts.
 */
@Module({})
export class AccountsModule {
  /** `shared`: the configuration and state modules of the same graph. */
  static with(shared: Imports): DynamicModule {
    return {
      module: AccountsModule,
      imports: shared,
      providers: [
        GrantStore,
        GrantAuth,
        { provide: ConnectedAccounts, useExisting: GrantAuth },
        ConnectRequests,
        ConnectFlow,
        GrantRevocation,
      ],
      exports: [GrantStore, ConnectedAccounts, ConnectRequests, ConnectFlow, GrantRevocation],
    };
  }
}
