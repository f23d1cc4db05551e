import { settle } from '../common/settle.js';
import { Injectable } from '@nestjs/common';
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { McpResource, type ResourceContext, ResourceProvider } from '../tools/resource.decorator.js';
import { RED_PIXEL_PNG } from './fixture-content.js';

export const WATCHED_URI = 'test://watched-resource';

/** The conformance suite's fixture resources (resources-*), declared like gsc://quota and served by the same catalog. */
@ResourceProvider()
@Injectable()
export class ConformanceResources {
  @McpResource({
    name: 'static-text',
    uri: 'test://static-text',
    title: 'Static text',
    description: 'Conformance fixture: a fixed text resource.',
    mimeType: 'text/plain',
  })
  staticText(uri: URL, _variables: Record<string, string>, _context: ResourceContext): Promise<ReadResourceResult> {
    return settle(() => {
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    });
  }

  @McpResource({
    name: 'static-binary',
    uri: 'test://static-binary',
    title: 'Static binary',
    description: 'Conformance fixture: a fixed binary resource (a 1×1 PNG).',
    mimeType: 'image/png',
  })
  staticBinary(uri: URL, _variables: Record<string, string>, _context: ResourceContext): Promise<ReadResourceResult> {
    return settle(() => {
      return { contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG }] };
    });
  }

  @McpResource({
    name: 'template',
    template: 'test://template/{id}/data',
    title: 'Templated resource',
    description: 'Conformance fixture: a resource template whose id is echoed back.',
    mimeType: 'application/json',
  })
  template(uri: URL, variables: Record<string, string>, _context: ResourceContext): Promise<ReadResourceResult> {
    return settle(() => {
      const { id } = variables;
      return {
        contents: [
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) },
        ],
      };
    });
  }

  @McpResource({
    name: 'watched-resource',
    uri: WATCHED_URI,
    title: 'Watched resource',
    description: 'Conformance fixture: a resource a 2025-11-25 client may subscribe to.',
    mimeType: 'text/plain',
  })
  watched(uri: URL, _variables: Record<string, string>, _context: ResourceContext): Promise<ReadResourceResult> {
    return settle(() => {
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }] };
    });
  }
}
