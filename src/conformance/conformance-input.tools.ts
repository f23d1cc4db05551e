import { settle } from '../common/settle.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  createRequestStateCodec,
  type InputRequest,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { clientCapabilities } from '../tools/client-capabilities.js';
import { NoArgs } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { NoOutput } from './fixture-content.js';

type Call = ToolCall<unknown>;
type Answer = Promise<ToolOutput | InputRequiredResult>;
type State = { readonly kind: string; readonly round?: number; readonly name?: string; readonly nonce: string };

const fixture = { input: NoArgs, output: NoOutput, access: 'read', apis: [] } as const;

const ask = (message: string, field: string, type: 'string' | 'boolean' = 'string'): InputRequest =>
  inputRequired.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: { [field]: type === 'boolean' ? ({ type: 'boolean' } as const) : ({ type: 'string' } as const) },
      required: [field],
    },
  });
const sample = (text: string, maxTokens = 100): InputRequest =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens });

/** The accepted answer's field, when the client answered that key with an accepted form holding it. */
function answered(call: Call, key: string, field: string): unknown {
  const view = inputResponse(call.sdk.mcpReq.inputResponses, key);
  return view.kind === 'elicit' && view.action === 'accept' ? view.content?.[field] : undefined;
}

function sampledText(call: Call, key: string): string | undefined {
  const view = inputResponse(call.sdk.mcpReq.inputResponses, key);
  const content = view.kind === 'sampling' ? (view.result.content as { type?: string; text?: unknown }) : undefined;
  return typeof content?.text === 'string' ? content.text : undefined;
}

const rootCount = (call: Call, key: string) => {
  const view = inputResponse(call.sdk.mcpReq.inputResponses, key);
  return view.kind === 'roots' ? view.roots.length : undefined;
};

/**
 * The conformance suite's fixtures that ask the client for something before
 * answering: sampling and elicitation pushed mid-call on 2025-11-25 (the SDK's
 * legacy shim turns the same inputRequired() into the request), and the
 * 2026-07-28 multi-round (input_required) scenarios. Their requestState is
 * HMAC-sealed with the SDK's codec under a per-process key, like the approval
 * flow's; unlike the approval flow (which asks again, PRODUCT.md §6), the
 * tampered-state fixture refuses a seal that does not open with a JSON-RPC
 * error, which is what that scenario requires of it.
 */
@ToolProvider()
@Injectable()
export class ConformanceInputTools {
  private readonly codec = createRequestStateCodec<State>({ key: randomBytes(32), ttlSeconds: 600 });

  @Tool({
    name: 'test_sampling',
    title: 'Sampling',
    description: 'Conformance fixture: asks the client to sample an LLM completion for the prompt.',
    input: z.object({ prompt: z.string().describe('The prompt to send to the LLM.') }),
    output: NoOutput,
    access: 'read',
    apis: [],
  })
  sampling({ prompt }: { prompt: string }, call: Call): Answer {
    return settle(() => {
      const text = sampledText(call, 'completion');
      if (text === undefined) {
        return inputRequired({ inputRequests: { completion: sample(prompt) } });
      }
      return toolOutput({}, `LLM response: ${text}`);
    });
  }

  @Tool({
    name: 'test_elicitation',
    title: 'Elicitation',
    description: 'Conformance fixture: asks the person for a response.',
    input: z.object({ message: z.string().describe('The message to show the user.') }),
    output: NoOutput,
    access: 'read',
    apis: [],
  })
  async elicitation({ message }: { message: string }, call: Call): Answer {
    return this.formAnswer(call, {
      message,
      requestedSchema: {
        type: 'object',
        properties: { response: { type: 'string', description: "User's response" } },
        required: ['response'],
      },
    });
  }

  @Tool({
    name: 'test_elicitation_sep1034_defaults',
    title: 'Elicitation with defaults',
    description: 'Conformance fixture: a form whose every field has a default (SEP-1034).',
    ...fixture,
  })
  async defaults(_args: unknown, call: Call): Answer {
    return this.formAnswer(call, {
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
  }

  @Tool({
    name: 'test_elicitation_sep1330_enums',
    title: 'Elicitation with enums',
    description: 'Conformance fixture: a form with the five enum forms of SEP-1330.',
    ...fixture,
  })
  async enums(_args: unknown, call: Call): Answer {
    const titled = (prefix: string, word: string) =>
      [1, 2, 3].map((n) => ({ const: `${prefix}${n}`, title: `${['First', 'Second', 'Third'][n - 1]} ${word}` }));
    return this.formAnswer(call, {
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled('value', 'Option') },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: { anyOf: titled('value', 'Choice') },
          },
        },
        required: [],
      },
    });
  }

  @Tool({
    name: 'test_missing_capability',
    title: 'Needs sampling',
    description: 'Conformance fixture: needs the client to sample; refused (-32021) when the client does not declare sampling.',
    ...fixture,
  })
  missingCapability(_args: unknown, call: Call): Answer {
    return settle(() => {
      // The SDK answers an input request the client's capabilities do not cover with -32021 (HTTP 400).
      return sampledText(call, 'sample') === undefined
        ? inputRequired({ inputRequests: { sample: sample('Say anything.', 20) } })
        : toolOutput({}, 'Success');
    });
  }

  @Tool({ name: 'test_input_required_result_elicitation', title: 'Asks a name', description: 'Conformance fixture (MRTR).', ...fixture })
  mrtrElicitation(_args: unknown, call: Call): Answer {
    return settle(() => {
      const name = answered(call, 'user_name', 'name');
      return typeof name === 'string'
        ? toolOutput({}, `Hello, ${name}!`)
        : inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } });
    });
  }

  @Tool({ name: 'test_input_required_result_sampling', title: 'Asks a sample', description: 'Conformance fixture (MRTR).', ...fixture })
  mrtrSampling(_args: unknown, call: Call): Answer {
    return settle(() => {
      const text = sampledText(call, 'capital_question');
      return text !== undefined
        ? toolOutput({}, `Sampling result: ${text}`)
        : inputRequired({ inputRequests: { capital_question: sample('What is the capital of France?') } });
    });
  }

  @Tool({ name: 'test_input_required_result_list_roots', title: 'Asks the roots', description: 'Conformance fixture (MRTR).', ...fixture })
  mrtrRoots(_args: unknown, call: Call): Answer {
    return settle(() => {
      const roots = rootCount(call, 'client_roots');
      return roots !== undefined
        ? toolOutput({}, `Found ${roots} root(s)`)
        : inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    });
  }

  @Tool({
    name: 'test_input_required_result_request_state',
    title: 'Asks with state',
    description: 'Conformance fixture (MRTR).',
    ...fixture,
  })
  async mrtrRequestState(_args: unknown, call: Call): Answer {
    const state = await this.opened(call);
    if (state?.kind === 'request-state' && answered(call, 'confirm', 'ok') === true) {
      return toolOutput({}, 'state-ok: requestState validated');
    }
    return inputRequired({
      inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') },
      requestState: await this.seal('request-state'),
    });
  }

  @Tool({
    name: 'test_input_required_result_multiple_inputs',
    title: 'Asks three things',
    description: 'Conformance fixture (MRTR).',
    ...fixture,
  })
  async mrtrMultiple(_args: unknown, call: Call): Answer {
    const state = await this.opened(call);
    const name = answered(call, 'user_name', 'name');
    const greeting = sampledText(call, 'greeting');
    const roots = rootCount(call, 'client_roots');
    if (state?.kind === 'multiple-inputs' && typeof name === 'string' && greeting !== undefined && roots !== undefined) {
      return toolOutput({}, `Name: ${name}; Greeting: ${greeting}; Roots: ${roots}`);
    }
    return inputRequired({
      inputRequests: {
        user_name: ask('What is your name?', 'name'),
        greeting: sample('Generate a greeting', 50),
        client_roots: inputRequired.listRoots(),
      },
      requestState: await this.seal('multiple-inputs'),
    });
  }

  @Tool({ name: 'test_input_required_result_multi_round', title: 'Asks twice', description: 'Conformance fixture (MRTR).', ...fixture })
  async mrtrMultiRound(_args: unknown, call: Call): Answer {
    const state = await this.opened(call);
    const name = answered(call, 'step1', 'name');
    if (state?.kind === 'multi-round' && state.round === 1 && typeof name === 'string') {
      return inputRequired({
        inputRequests: { step2: ask('Step 2: What is your favorite color?', 'color') },
        requestState: await this.seal('multi-round', { round: 2, name }),
      });
    }
    const color = answered(call, 'step2', 'color');
    if (state?.kind === 'multi-round' && state.round === 2 && typeof color === 'string') {
      return toolOutput({}, `Multi-round complete for ${state.name ?? 'friend'} who likes ${color}`);
    }
    return inputRequired({
      inputRequests: { step1: ask('Step 1: What is your name?', 'name') },
      requestState: await this.seal('multi-round', { round: 1 }),
    });
  }

  @Tool({
    name: 'test_input_required_result_tampered_state',
    title: 'Refuses a forged state',
    description: 'Conformance fixture (MRTR).',
    ...fixture,
  })
  async mrtrTampered(_args: unknown, call: Call): Answer {
    const raw = call.sdk.mcpReq.requestState<string>();
    if (raw !== undefined) {
      const state = await this.opened(call);
      if (!state) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState failed its integrity check; start the call again');
      }
      if (state.kind === 'tamper-test' && inputResponse(call.sdk.mcpReq.inputResponses, 'confirm').kind === 'elicit') {
        return toolOutput({}, 'integrity-ok: state verified');
      }
    }
    return inputRequired({
      inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') },
      requestState: await this.seal('tamper-test'),
    });
  }

  @Tool({
    name: 'test_input_required_result_capabilities',
    title: 'Asks what the client can answer',
    description: 'Conformance fixture (MRTR).',
    ...fixture,
  })
  async mrtrCapabilities(_args: unknown, call: Call): Answer {
    const responses = Object.keys(call.sdk.mcpReq.inputResponses ?? {});
    if (responses.length > 0) {
      return toolOutput({}, `capabilities-ok: received ${responses.join(',')}`);
    }
    const capabilities = clientCapabilities(call as ToolCall);
    const inputRequests: Record<string, InputRequest> = {
      ...(capabilities?.elicitation ? { elicit_input: ask('Elicitation input', 'value') } : {}),
      ...(capabilities?.sampling ? { sample_input: sample('Sample request', 50) } : {}),
    };
    return Object.keys(inputRequests).length === 0
      ? toolOutput({}, 'No supported capabilities declared')
      : inputRequired({ inputRequests, requestState: await this.seal('capabilities-test') });
  }

  /** A form elicitation on the first call; its answer, as the suite's fixture words it, on the re-entry. */
  private formAnswer(call: Call, params: { message: string; requestedSchema: Record<string, unknown> }): Answer {
    return settle(() => {
      const view = inputResponse(call.sdk.mcpReq.inputResponses, 'form');
      if (view.kind !== 'elicit') {
        // The schemas are passed as written (enumNames, oneOf/anyOf titles): the SDK's zod conversion would rewrite them.
        return inputRequired({
          inputRequests: { form: { method: 'elicitation/create', params: { mode: 'form', ...params } } as InputRequest },
        });
      }
      return toolOutput({}, `User response: action=${view.action}, content=${JSON.stringify(view.content ?? {})}`);
    });
  }

  private seal(kind: string, more: Partial<State> = {}): Promise<string> {
    return this.codec.mint({ ...more, kind, nonce: randomUUID() });
  }

  /** The request's state when its seal opens; undefined when there is none or it does not. */
  private async opened(call: Call): Promise<State | undefined> {
    const raw = call.sdk.mcpReq.requestState<string>();
    return raw === undefined ? undefined : this.codec.verify(raw, call.sdk).catch(() => undefined);
  }
}
