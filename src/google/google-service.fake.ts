// The one GoogleService stand-in for domain-service specs. It runs each
// service's real request function against recording clients, checks that the
// function calls the client method its operation names, and answers from a
// table per method (data, or an error to throw). Retries, deadlines and
// sentences are GoogleService's own and are tested there, against real HTTP.

import { CallCancelledError, GoogleApiError, type GoogleErrorFacts, type GoogleErrorKind, type GoogleOperation } from './google-error.js';
import { type GoogleMethod, methodSpec } from './google-methods.js';
import type { CallOptions, GoogleClients, GoogleRequest, GoogleService } from './google.service.js';

export interface FakeCall {
  readonly op: GoogleOperation;
  /** The options the service passed (signal, retryQuota). */
  readonly options: CallOptions;
  /** The client method the request function called, e.g. searchconsole.sitemaps.submit. */
  client?: string;
  /** Its arguments. */
  args: unknown[];
}

/** Data to answer with, or a function of the call's first argument that returns it or throws. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the union documents the function form
export type FakeAnswer = unknown | ((params: any, call: FakeCall) => unknown);

export class FakeGoogle {
  readonly calls: FakeCall[] = [];
  private readonly answers = new Map<GoogleMethod, FakeAnswer>();

  /** How the fake answers `method` from now on. */
  on(method: GoogleMethod, answer: FakeAnswer): this {
    this.answers.set(method, answer);
    return this;
  }

  /** Every call of `method` throws `error`. */
  fail(method: GoogleMethod, error: Error): this {
    return this.on(method, () => {
      throw error;
    });
  }

  /** The fake where a GoogleService is expected. */
  get service(): GoogleService {
    return this as unknown as GoogleService;
  }

  /** The operations asked for, in order. */
  get ops(): GoogleOperation[] {
    return this.calls.map((c) => c.op);
  }

  async call<T>(op: GoogleOperation, request: GoogleRequest<T>, options: CallOptions = {}): Promise<T> {
    // As GoogleService: a cancelled call is never sent, so it is not recorded either.
    if (options.signal?.aborted) {
      throw new CallCancelledError(op);
    }
    const call: FakeCall = { op, options, args: [] };
    this.calls.push(call);
    const clients = recordingClients(async (path, args) => {
      const expected = methodSpec(op.method).client;
      if (path !== expected) {
        throw new Error(`the request for ${op.method} called ${path}, not ${expected}`);
      }
      call.client = path;
      call.args = args;
      return { data: await this.answer(op.method, args[0], call) };
    });
    return (await request(clients)).data;
  }

  private async answer(method: GoogleMethod, params: unknown, call: FakeCall): Promise<unknown> {
    if (!this.answers.has(method)) {
      // Empty-bodied writes answer "" as Google does; anything else must be set up.
      if (!methodSpec(method).answer) {
        return '';
      }
      throw new Error(`FakeGoogle has no answer for ${method}; give one with on('${method}', …)`);
    }
    const answer = this.answers.get(method);
    return typeof answer === 'function' ? await (answer as (p: unknown, c: FakeCall) => unknown)(params, call) : answer;
  }
}

/** A GoogleApiError as GoogleService would throw it, for a given kind. */
export function googleError(
  kind: GoogleErrorKind,
  facts: Partial<GoogleErrorFacts> = {},
  message = `Google refused (${kind}).`,
): GoogleApiError {
  return new GoogleApiError(message, { kind, phase: 'api', outcome: 'unchanged', attempts: 1, googleMessage: message, ...facts });
}

function recordingClients(onCall: (path: string, args: unknown[]) => Promise<{ data: unknown }>): GoogleClients {
  const node = (path: string[]): unknown =>
    new Proxy(function () {}, {
      get: (_target, key) => (typeof key === 'string' && key !== 'then' ? node([...path, key]) : undefined),
      apply: (_target, _this, args: unknown[]) => onCall(path.join('.'), args),
    });
  return {
    searchconsole: node(['searchconsole']),
    indexing: node(['indexing']),
    siteVerification: node(['siteVerification']),
  } as GoogleClients;
}
