import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { InMemoryServerEventBus, type McpServer, type ServerEventBus } from '@modelcontextprotocol/server';
import type { Caller } from '../identity/caller.js';

/** Who a server is being built for: the era of its transport and the caller (the same for every request it serves). */
export interface FeatureContext {
  readonly era: 'legacy' | 'modern';
  readonly caller: Caller;
}

/**
 * A protocol feature beyond our tools and resources (prompts, completions,
 * logging, resource subscriptions): it registers its handlers and
 * capabilities on every McpServer the factory builds, before the server is
 * connected. The production server declares none, so it serves none of those
 * methods and declares none of those capabilities; the conformance fixtures
 * (src/conformance/, GSC_CONFORMANCE_FIXTURES) are one.
 */
export interface ServerFeature {
  extend(server: McpServer, context: FeatureContext): void;
}

/** Marks a provider class implementing ServerFeature. */
export const ServerFeatureProvider = DiscoveryService.createDecorator<void>();

/** Every @ServerFeatureProvider of this instance, found at bootstrap the way ToolRegistry finds tools. */
@Injectable()
export class ServerFeatures implements OnApplicationBootstrap {
  private found: readonly ServerFeature[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    this.found = this.discovery
      .getProviders({ metadataKey: ServerFeatureProvider.KEY })
      .filter((wrapper) => wrapper.instance && wrapper.isDependencyTreeStatic())
      .map((wrapper) => wrapper.instance as ServerFeature);
  }

  get all(): readonly ServerFeature[] {
    return this.found;
  }
}

/**
 * The change events 2026-07-28 `subscriptions/listen` streams receive
 * (tools_list_changed, …): one bus per instance, handed to the SDK's modern
 * handler (McpHttpController) and injectable by whatever changes a listing.
 * In process: a listen stream hears the changes of the replica it is open on.
 */
export const SERVER_EVENTS = Symbol('SERVER_EVENTS');

export const SERVER_EVENTS_PROVIDER = { provide: SERVER_EVENTS, useFactory: (): ServerEventBus => new InMemoryServerEventBus() };
