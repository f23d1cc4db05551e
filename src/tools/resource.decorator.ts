import { SetMetadata } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { ReadResourceResult, Resource as ListedResource } from '@modelcontextprotocol/server';
import type { Caller } from '../identity/caller.js';

/** Who reads a resource: resources are bound to their caller as tool calls are (an export is its principal's alone). */
export interface ResourceContext {
  readonly caller: Caller;
  /** The properties this caller may touch; undefined means all. */
  readonly sites?: readonly string[];
}

export interface ResourceSpec {
  /** Unique name, e.g. "quota" or "exports". */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType?: string;
  /** A fixed URI (gsc://quota) … */
  readonly uri?: string;
  /** … or an RFC 6570 template (gsc://exports/{file}); its resources are listed by the @McpResourceList method of the same name. */
  readonly template?: string;
}

/** Reads one resource; variables are the template's, empty for a fixed URI. Throw ResourceNotFoundError for what this caller may not see. */
export type ResourceReader = (uri: URL, variables: Record<string, string>, context: ResourceContext) => Promise<ReadResourceResult>;

/** Lists a template's resources for this caller (resources/list). */
export type ResourceLister = (context: ResourceContext) => Promise<ListedResource[]>;

/** Marks a provider class whose methods carry @McpResource / @McpResourceList declarations. */
export const ResourceProvider = DiscoveryService.createDecorator<void>();

export const RESOURCE_METADATA = 'gsc:resource';
export const RESOURCE_LIST_METADATA = 'gsc:resource-list';

/** Declares a provider method as the reader of an MCP resource. */
export function McpResource(spec: ResourceSpec) {
  if (!spec.uri === !spec.template) {
    throw new Error(`resource ${spec.name}: give exactly one of uri and template`);
  }
  return SetMetadata(RESOURCE_METADATA, spec) as (
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<ResourceReader>,
  ) => void;
}

/** Declares a provider method as the lister of a templated resource, by the resource's name. */
export function McpResourceList(name: string) {
  return SetMetadata(RESOURCE_LIST_METADATA, name) as (
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<ResourceLister>,
  ) => void;
}
