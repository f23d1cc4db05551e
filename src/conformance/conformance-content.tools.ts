import { settle } from '../common/settle.js';
import { Inject, Injectable } from '@nestjs/common';
import type { ServerEventBus } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { UserFacingError } from '../common/user-facing-error.js';
import { NoArgs } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { SERVER_EVENTS } from '../tools/server-features.js';
import { LOGGER, NoOutput, RED_PIXEL_PNG, SILENT_WAV, sleep } from './fixture-content.js';

const fixture = { input: NoArgs, output: NoOutput, access: 'read', apis: [] } as const;

/** What json_schema_2020_12_tool's listing must keep (SEP-1613, SEP-2106): $defs with an $anchor, allOf/anyOf, if/then/else. */
const Address = z.object({ street: z.string().optional(), city: z.string().optional() }).meta({ id: 'address', $anchor: 'addressDef' });
const ContactInput = z
  .strictObject({
    name: z.string().optional(),
    address: Address.optional(),
    contactMethod: z.enum(['phone', 'email']).optional(),
    phone: z.string().optional(),
    email: z.string().optional(),
  })
  .meta({
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
  })
  // The same rules, checked: the listing's if/then/else is not decoration.
  .superRefine((v, ctx) => {
    const needed = v.contactMethod === 'phone' ? 'phone' : 'email';
    if (v[needed] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [needed],
        message: `${needed} is required when contactMethod is ${v.contactMethod ?? 'not phone'}`,
      });
    }
  });

/**
 * The conformance suite's content and notification fixtures (tools-call-*,
 * server-stateless, json-schema-2020-12), declared as our own read tools: they
 * go through the same catalog (validation, listing) and dispatcher as
 * list_sites, which is what the suite then measures.
 */
@ToolProvider()
@Injectable()
export class ConformanceContentTools {
  constructor(@Inject(SERVER_EVENTS) private readonly events: ServerEventBus) {}

  @Tool({ name: 'test_simple_text', title: 'Simple text', description: 'Conformance fixture: returns one text block.', ...fixture })
  simpleText(): Promise<ToolOutput> {
    return settle(() => {
      return toolOutput({}, 'This is a simple text response for testing.');
    });
  }

  @Tool({ name: 'test_image_content', title: 'Image content', description: 'Conformance fixture: returns a 1×1 PNG.', ...fixture })
  image(): Promise<ToolOutput> {
    return settle(() => {
      return { ...toolOutput({}, 'A 1×1 red PNG.'), content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] };
    });
  }

  @Tool({ name: 'test_audio_content', title: 'Audio content', description: 'Conformance fixture: returns a short WAV.', ...fixture })
  audio(): Promise<ToolOutput> {
    return settle(() => {
      return { ...toolOutput({}, 'A silent WAV.'), content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] };
    });
  }

  @Tool({
    name: 'test_embedded_resource',
    title: 'Embedded resource',
    description: 'Conformance fixture: returns an embedded text resource.',
    ...fixture,
  })
  embeddedResource(): Promise<ToolOutput> {
    return settle(() => {
      return {
        ...toolOutput({}, 'An embedded resource follows.'),
        content: [
          {
            type: 'resource',
            resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
          },
        ],
      };
    });
  }

  @Tool({
    name: 'test_multiple_content_types',
    title: 'Mixed content',
    description: 'Conformance fixture: returns text, an image and an embedded resource.',
    ...fixture,
  })
  mixedContent(): Promise<ToolOutput> {
    return settle(() => {
      return {
        ...toolOutput({}, 'Multiple content types test:'),
        content: [
          { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ],
      };
    });
  }

  @Tool({ name: 'test_error_handling', title: 'Error', description: 'Conformance fixture: always fails (isError).', ...fixture })
  error(): Promise<ToolOutput> {
    return settle(() => {
      throw new UserFacingError('This tool intentionally returns an error for testing. Nothing was changed.');
    });
  }

  @Tool({
    name: 'test_tool_with_logging',
    title: 'Logging',
    description: 'Conformance fixture: sends three info log messages while it runs.',
    ...fixture,
  })
  async withLogging(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    // mcpReq.log applies the level the client asked for: logging/setLevel (2025-11-25), _meta logLevel (2026-07-28).
    await call.sdk.mcpReq.log('info', 'Tool execution started', LOGGER);
    await sleep(50);
    await call.sdk.mcpReq.log('info', 'Tool processing data', LOGGER);
    await sleep(50);
    await call.sdk.mcpReq.log('info', 'Tool execution completed', LOGGER);
    return toolOutput({}, 'Tool with logging executed successfully');
  }

  @Tool({
    name: 'test_logging_tool',
    title: 'Logging (per request)',
    description: 'Conformance fixture: logs once, only when the request asked for a log level.',
    ...fixture,
  })
  async loggingTool(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    await call.sdk.mcpReq.log('info', 'Diagnostic trace logging activated', LOGGER);
    return toolOutput({}, 'Logging evaluated');
  }

  @Tool({
    name: 'test_tool_with_progress',
    title: 'Progress',
    description: 'Conformance fixture: reports progress 0, 50 and 100 of 100.',
    ...fixture,
  })
  async withProgress(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    for (const step of [0, 50, 100]) {
      await call.progress(step, 100, `Completed step ${step} of 100`);
      if (step < 100) {
        await sleep(50);
      }
    }
    return toolOutput({}, String(call.sdk.mcpReq._meta?.progressToken ?? 'no progress token'));
  }

  @Tool({
    name: 'test_streaming_elicitation',
    title: 'Streamed response',
    description: 'Conformance fixture: streams progress before its result, and nothing else.',
    ...fixture,
  })
  async streaming(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    await call.progress(50, 100, 'Half way');
    return toolOutput({}, 'Streaming complete');
  }

  @Tool({
    name: 'test_reconnection',
    title: 'Reconnection',
    description: 'Conformance fixture: closes its SSE stream mid-call; the answer arrives when the client resumes (SEP-1699).',
    ...fixture,
  })
  async reconnection(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    // 2025-11-25 sessions only: the client reconnects with Last-Event-ID and the session's event store replays the result.
    call.sdk.http?.closeSSE?.();
    await sleep(100);
    return toolOutput({}, 'Reconnection test completed successfully: the client resumed the stream after it was closed.');
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    title: 'JSON Schema 2020-12',
    description: 'Conformance fixture: an input schema with $defs, allOf/anyOf and if/then/else.',
    input: ContactInput,
    output: NoOutput,
    access: 'read',
    apis: [],
  })
  jsonSchema(args: z.infer<typeof ContactInput>): Promise<ToolOutput> {
    return settle(() => {
      return toolOutput({}, `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);
    });
  }

  @Tool({
    name: 'test_trigger_tool_change',
    title: 'Signal a tool-list change',
    description: 'Conformance fixture: tells open subscriptions/listen streams that the tool list changed.',
    ...fixture,
  })
  triggerToolChange(): Promise<ToolOutput> {
    return settle(() => {
      this.events.publish({ kind: 'tools_list_changed' });
      return toolOutput({}, 'Mutation triggered');
    });
  }

  @Tool({
    name: 'test_trigger_prompt_change',
    title: 'Signal a prompt-list change',
    description: 'Conformance fixture: tells open subscriptions/listen streams that the prompt list changed.',
    ...fixture,
  })
  triggerPromptChange(): Promise<ToolOutput> {
    return settle(() => {
      this.events.publish({ kind: 'prompts_list_changed' });
      return toolOutput({}, 'Mutation triggered');
    });
  }
}
