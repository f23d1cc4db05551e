import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  RESOURCE_LIST_METADATA,
  RESOURCE_METADATA,
  ResourceProvider,
  type ResourceLister,
  type ResourceReader,
  type ResourceSpec,
} from './resource.decorator.js';

export interface RegisteredResource {
  readonly spec: ResourceSpec;
  readonly read: ResourceReader;
  readonly list?: ResourceLister;
}

/**
 * Finds every @McpResource on @ResourceProvider classes at bootstrap (gsc://quota,
 * gsc://exports/…), the way ToolRegistry finds tools. The server declares the
 * resources capability only when there is one.
 */
@Injectable()
export class ResourceRegistry implements OnApplicationBootstrap {
  private found: RegisteredResource[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const readers = new Map<string, { spec: ResourceSpec; read: ResourceReader }>();
    const listers = new Map<string, ResourceLister>();
    for (const wrapper of this.discovery.getProviders({ metadataKey: ResourceProvider.KEY })) {
      const instance = wrapper.instance as Record<string, (...args: never[]) => unknown> | undefined;
      if (!instance || !wrapper.isDependencyTreeStatic()) {
        continue;
      }
      const prototype = Object.getPrototypeOf(instance) as Record<string, (...args: never[]) => unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const spec = this.reflector.get<ResourceSpec | undefined>(RESOURCE_METADATA, prototype[method]);
        const listFor = this.reflector.get<string | undefined>(RESOURCE_LIST_METADATA, prototype[method]);
        const bound = prototype[method].bind(instance) as unknown;
        if (spec) {
          if (readers.has(spec.name)) {
            throw new Error(`Duplicate MCP resource name ${spec.name}`);
          }
          readers.set(spec.name, { spec, read: bound as ResourceReader });
        }
        if (listFor) {
          listers.set(listFor, bound as ResourceLister);
        }
      }
    }
    for (const name of listers.keys()) {
      if (!readers.get(name)?.spec.template) {
        throw new Error(`@McpResourceList('${name}') names no templated resource`);
      }
    }
    this.found = [...readers.values()].map(({ spec, read }) => ({ spec, read, list: listers.get(spec.name) }));
  }

  get resources(): readonly RegisteredResource[] {
    return this.found;
  }
}
