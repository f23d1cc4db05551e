import { Injectable } from '@nestjs/common';
import {
  completable,
  type GetPromptResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { type FeatureContext, type ServerFeature, ServerFeatureProvider } from '../tools/server-features.js';
import { RED_PIXEL_PNG } from './fixture-content.js';

const ARG_WORDS = ['paris', 'park', 'party', 'test', 'testing'];

// Built once: completable() marks the schema object itself.
const PromptArgs = z.object({
  arg1: completable(z.string().describe('First test argument'), (value) => ARG_WORDS.filter((w) => w.startsWith(value.toLowerCase()))),
  arg2: z.string().describe('Second test argument'),
});
const EmbeddedArgs = z.object({ resourceUri: z.string().describe('URI of the resource to embed') });

const userText = (text: string): GetPromptResult['messages'][number] => ({ role: 'user', content: { type: 'text', text } });

/**
 * What the conformance suite needs beyond tools and resources: its prompts
 * (with a completable argument, so completion/complete is served), logging,
 * and 2025-11-25 resource subscriptions. Registered on each server, so these
 * capabilities are declared only when the fixtures are on.
 *
 * The production server declares none of them, deliberately: it has no
 * prompts, so nothing to complete; everything a model needs is in a tool's
 * answer and its operator's logs go to stderr and /admin, so logging would be
 * a capability with nothing behind it (and logging/setLevel is deprecated in
 * 2026-07-28, SEP-2577); and resources/subscribe was removed in 2026-07-28
 * while gsc://quota and the exports have no update events to deliver.
 */
@ServerFeatureProvider()
@Injectable()
export class ConformanceFeature implements ServerFeature {
  extend(server: McpServer, { era }: FeatureContext): void {
    // 2025-11-25: logging/setLevel; 2026-07-28: the per-request _meta logLevel (mcpReq.log applies either).
    server.server.registerCapabilities({ logging: {} });
    if (era === 'legacy') {
      // Removed in 2026-07-28 (subscriptions/listen carries change events instead), so a modern request gets -32601.
      const subscribed = new Set<string>();
      server.server.registerCapabilities({ resources: { subscribe: true } });
      server.server.setRequestHandler('resources/subscribe', (request) => (subscribed.add(request.params.uri), {}));
      server.server.setRequestHandler('resources/unsubscribe', (request) => (subscribed.delete(request.params.uri), {}));
    }
    registerPrompts(server);
  }
}

function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'test_simple_prompt',
    { title: 'Simple prompt', description: 'Conformance fixture: a prompt without arguments.' },
    () => ({
      messages: [userText('This is a simple prompt for testing.')],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_arguments',
    { title: 'Prompt with arguments', description: 'Conformance fixture: a prompt with two required arguments.', argsSchema: PromptArgs },
    ({ arg1, arg2 }) => ({ messages: [userText(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt with an embedded resource',
      description: 'Conformance fixture: a prompt embedding the resource it is given.',
      argsSchema: EmbeddedArgs,
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        userText('Please process the embedded resource above.'),
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { title: 'Prompt with an image', description: 'Conformance fixture: a prompt with an image.' },
    () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
        userText('Please analyze the image above.'),
      ],
    }),
  );
  server.registerPrompt(
    'test_input_required_result_prompt',
    { title: 'Prompt that asks first', description: 'Conformance fixture (MRTR): asks for context before answering.' },
    (ctx: ServerContext) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'user_context');
      const context = view.kind === 'elicit' && view.action === 'accept' ? view.content?.context : undefined;
      return typeof context === 'string'
        ? { messages: [userText(`Prompt with context: ${context}`)] }
        : inputRequired({
            inputRequests: {
              user_context: inputRequired.elicit({
                message: 'What context should the prompt use?',
                requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
              }),
            },
          });
    },
  );
}
