// First: on an older Node the host gets one clear Error before anything else loads.
import './common/node-version-gate.js';
import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { ConnectController, connectRoot } from './accounts/connect.controller.js';
import { AdminAccessGuard } from './admin/admin-access.guard.js';
import { AccountsController } from './admin/accounts.controller.js';
import { AnnotationsController } from './admin/annotations.controller.js';
import { AnnotationsModule } from './annotations/annotations.module.js';
import { AdminController } from './admin/admin.controller.js';
import { MetricsController } from './admin/metrics.controller.js';
import { MetricsModule } from './admin/metrics.module.js';
import { QuotaController } from './admin/quota.controller.js';
import { AppModule, type OptionalModule } from './app.module.js';
import type { ModuleGraph } from './common/module-graph.js';
import { protectedResourcePaths } from './identity/protected-resource.js';
import { GoogleAuthModule } from './google/google-auth.module.js';
import { CONFIG, type Config } from './config/config.js';
import { MODULE_OPTIONS } from './config/config.module.js';
import { HttpIdentity } from './http/http-identity.service.js';
import { HttpTraffic } from './http/http-traffic.service.js';
import { HTTP_MOUNT, type HttpMount, mountOf, STANDALONE_MOUNT } from './http/http-mount.js';
import { ProtectedResourceController } from './http/protected-resource.controller.js';
import { AiCatalogController, ServerCardController } from './http/server-card.controller.js';
import { AI_CATALOG_PATH, SERVER_CARD_SUFFIX } from './http/server-card.js';
import { McpHttpController } from './mcp/mcp-http.controller.js';
import { LegacySessions } from './mcp/legacy-sessions.service.js';
import { QuotaModule } from './quota/quota.module.js';
import type { SearchConsoleMcpAsyncOptions, SearchConsoleMcpOptions } from './config/search-console-mcp.options.js';

// The public entry, google-search-console-mcp/nest, is this file: the option types are part of it.
export type { HostRequest, SearchConsoleMcpAsyncOptions, SearchConsoleMcpOptions } from './config/search-console-mcp.options.js';

/**
 * Google Search Console as an MCP endpoint inside a Nest app (PRODUCT §8a):
 * `/mcp` (both protocol revisions) under the host's global prefix, and, when
 * asked for, the operations routes and Prometheus metrics at paths of the
 * host's choosing. It registers no global (APP_*) enhancers: the host's own
 * guards, interceptors, pipes and filters run around the HTTP request to the
 * MCP path, never around the tool calls inside it, and this module's policy
 * (allowlist, approvals, per-principal rules) runs around every tool call.
 *
 * The standalone server (`google-search-console-mcp --http`) is this module
 * too, mounted at the root (forConfig).
 */
@Module({})
export class SearchConsoleMcpModule {
  static forRoot(options: SearchConsoleMcpOptions = {}): DynamicModule {
    return SearchConsoleMcpModule.forRootAsync({ useFactory: () => options });
  }

  static forRootAsync(options: SearchConsoleMcpAsyncOptions): DynamicModule {
    return mounted(AppModule.graphAsync(options, [MetricsModule]), (routes) => ({
      provide: HTTP_MOUNT,
      useFactory: (module: SearchConsoleMcpOptions, config: Config) => routes.mount(mountOf(module), config),
      inject: [MODULE_OPTIONS, CONFIG],
    }));
  }

  /**
   * The standalone server: configuration parsed before Nest booted, everything at the root.
   * @internal not part of the public entry (its types are the server's own)
   */
  static forConfig(config: Config, optional: readonly OptionalModule[] = []): DynamicModule {
    return mounted(
      AppModule.graph(config, [MetricsModule]),
      (routes) => ({
        provide: HTTP_MOUNT,
        useFactory: () => routes.mount(STANDALONE_MOUNT, config),
      }),
      optional,
    );
  }
}

/**
 * One module instance around the app, with its own routes, mounted where the HTTP_MOUNT provider says.
 * Nothing in it is @Global: the host's modules see none of its providers (ModuleGraph).
 */
function mounted(
  graph: ModuleGraph,
  mountProvider: (routes: MountedRoutes) => Provider,
  optional: readonly OptionalModule[] = [],
): DynamicModule {
  const routes = mountedRoutes();
  return {
    module: SearchConsoleMcpModule,
    imports: [graph.shared, AppModule.in(graph, optional), GoogleAuthModule.in(graph), QuotaModule.in(graph), AnnotationsModule.in(graph)],
    providers: [mountProvider(routes), HttpIdentity, HttpTraffic, LegacySessions, AdminAccessGuard],
    controllers: routes.controllers,
  };
}

type MountedRoutes = ReturnType<typeof mountedRoutes>;

/**
 * Controllers of one module instance, as subclasses of their own, whose paths
 * are set once the options are known (a factory provider runs before Nest
 * registers routes). A route that is switched off gets no path at all, so it
 * can never shadow one of the host's.
 */
function mountedRoutes() {
  class McpEndpoint extends McpHttpController {}
  class AdminEndpoints extends AdminController {}
  class QuotaEndpoints extends QuotaController {}
  class AccountsEndpoints extends AccountsController {}
  class AnnotationsEndpoints extends AnnotationsController {}
  class MetricsEndpoint extends MetricsController {}
  class ProtectedResourceEndpoints extends ProtectedResourceController {}
  class ConnectEndpoints extends ConnectController {}
  class ServerCardEndpoint extends ServerCardController {}
  class AiCatalogEndpoint extends AiCatalogController {}
  const at = (controller: Type, paths: string[]) => Reflect.defineMetadata(PATH_METADATA, paths, controller);
  return {
    controllers: [
      McpEndpoint,
      AdminEndpoints,
      QuotaEndpoints,
      AccountsEndpoints,
      AnnotationsEndpoints,
      MetricsEndpoint,
      ProtectedResourceEndpoints,
      ConnectEndpoints,
      ServerCardEndpoint,
      AiCatalogEndpoint,
    ],
    mount(mount: HttpMount, config: Config): HttpMount {
      at(McpEndpoint, [mount.mcpPath]);
      at(AdminEndpoints, mount.adminPath ? [mount.adminPath] : []);
      at(QuotaEndpoints, mount.adminPath ? [mount.adminPath] : []);
      at(AccountsEndpoints, mount.adminPath ? [mount.adminPath] : []);
      at(AnnotationsEndpoints, mount.adminPath ? [mount.adminPath] : []);
      at(MetricsEndpoint, mount.metricsPath ? [mount.metricsPath] : []);
      at(ProtectedResourceEndpoints, config.auth ? protectedResourcePaths(mount.mcpPath) : []);
      // Connected accounts (§8d): the connect page and its callbacks, beside the MCP endpoint.
      at(ConnectEndpoints, config.connected ? [connectRoot(mount)] : []);
      // Discovery (SEP-2127, experimental): the card beside the MCP endpoint; the site's AI Catalog where this module owns the site.
      at(ServerCardEndpoint, [`${mount.mcpPath}/${SERVER_CARD_SUFFIX}`]);
      at(AiCatalogEndpoint, mount.aiCatalog ? [AI_CATALOG_PATH] : []);
      return mount;
    },
  };
}
