/**
 * The three places the server's work is traced (PRODUCT.md §8e): one MCP
 * request, one Google HTTP request, one state-store round trip. The OpenTelemetry
 * implementation (src/telemetry/) is imported only when an OTLP endpoint is
 * configured and installs itself here before Nest boots; until then no hook is
 * set, callers run their work directly, and no @opentelemetry module is loaded.
 *
 * Process-wide, as OpenTelemetry's own global provider is: the Google client
 * layer and the state store are plain classes that scripts use without Nest.
 * Attributes are facts the callers already hold — never a token, a query's text,
 * a URL's query string or an e-mail address.
 */

export type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** What one span may learn once its work is done. */
export interface SpanNotes {
  set(attributes: Attributes): void;
}

/** One MCP request as the server received it. */
export interface RequestFacts {
  readonly method: string;
  /** The tool (tools/call) or prompt (prompts/get) it names: the span name's target. */
  readonly target?: string;
  readonly attributes: Attributes;
  /** The request's params._meta: traceparent, tracestate and baggage travel there (MCP semantic conventions). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** One Google request: the API, the method (e.g. searchanalytics.query) and the attempt of the call it belongs to. */
export interface GoogleFacts {
  readonly api: string;
  readonly method: string;
  readonly attempt: number;
}

/** One state-store operation: the store's system (sqlite, redis) and the contract's operation name. */
export interface StateFacts {
  readonly system: string;
  readonly operation: string;
  /** The key's namespace (its text before the first ':'), never the key itself: keys carry principals and properties. */
  readonly namespace?: string;
}

export interface TelemetryHooks {
  /** Runs one MCP request as its server span; `notes` records its outcome (error.type, …). */
  request<T>(facts: RequestFacts, run: (notes: SpanNotes) => Promise<T>): Promise<T>;
  /** Runs one Google HTTP request as a client span, a child of the current one. */
  google<T>(facts: GoogleFacts, run: (notes: SpanNotes) => Promise<T>): Promise<T>;
  /** Runs one state-store operation as a client span, a child of the current one. */
  state<T>(facts: StateFacts, run: () => Promise<T>): Promise<T>;
  /** Exports what is still buffered (bounded), then stops; called once the server has drained. */
  shutdown(): Promise<void>;
}

let installed: TelemetryHooks | undefined;

/** Called once by src/telemetry/ when OpenTelemetry starts. */
export function installTelemetry(hooks: TelemetryHooks | undefined): void {
  installed = hooks;
}

/** The installed hooks, or undefined when telemetry is off (then the caller runs its work as is). */
export function telemetry(): TelemetryHooks | undefined {
  return installed;
}
