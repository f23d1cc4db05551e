// The view's side of MCP Apps (SEP-1865, protocol 2026-01-26): JSON-RPC over
// postMessage with the host. Hand-written on the extension's own types rather
// than ext-apps' App class: the App class bundles the whole MCP client SDK and
// zod (about 400 KB minified), twice the 200 KB a view may weigh. The tests run
// this against the extension's AppBridge, the host side real clients use.
import type {
  McpUiHostCapabilities,
  McpUiHostContext,
  McpUiInitializeResult,
  McpUiToolInputNotification,
  McpUiToolResultNotification,
  McpUiSizeChangedNotification,
  McpUiUpdateModelContextRequest,
} from '@modelcontextprotocol/ext-apps';

const PROTOCOL_VERSION = '2026-01-26';

/** What a tools/call answers (the MCP CallToolResult, loosely: the view reads only these). */
export interface ToolResult {
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

interface Message {
  readonly jsonrpc: '2.0';
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

export interface ViewHandlers {
  /** The arguments the model called the linked tool with. */
  readonly onToolInput?: (args: Record<string, unknown>) => void;
  /** The linked tool's result, as the model got it. */
  readonly onToolResult: (result: ToolResult) => void;
}

export class ViewBridge {
  private nextId = 1;
  private readonly pending = new Map<number | string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private context: McpUiHostContext = {};
  private capabilities: McpUiHostCapabilities = {};

  constructor(private readonly handlers: ViewHandlers) {}

  /** ui/initialize, then ui/notifications/initialized; from then on the host sends the tool's input and result. */
  async connect(appName: string): Promise<void> {
    window.addEventListener('message', (event) => {
      if (event.source !== window.parent || typeof event.data !== 'object' || event.data === null) {
        return;
      }
      this.receive(event.data as Message);
    });
    const result = (await this.request('ui/initialize', {
      protocolVersion: PROTOCOL_VERSION,
      appInfo: { name: appName, version: '1' },
      appCapabilities: {},
    })) as McpUiInitializeResult;
    this.capabilities = result.hostCapabilities ?? {};
    this.applyContext(result.hostContext ?? {});
    this.post({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
    this.reportSize();
  }

  /** tools/call through the host, which sends it to this server on the user's connection. */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.request('tools/call', { name, arguments: args })) as ToolResult;
  }

  async readResource(uri: string): Promise<{ contents: ReadonlyArray<{ readonly text?: string }> }> {
    return (await this.request('resources/read', { uri })) as { contents: ReadonlyArray<{ readonly text?: string }> };
  }

  /**
   * ui/update-model-context: what the person is looking at, for the model's next turn. Each update replaces
   * the previous one; the host adds it to the model's context without starting a turn. Sent only to a host
   * that declared updateModelContext, text and structuredContent only where it declared that modality
   * (text also when it named none); false when the host takes no context.
   */
  async updateModelContext(params: McpUiUpdateModelContextRequest['params']): Promise<boolean> {
    const accepts = this.capabilities.updateModelContext;
    if (!accepts) {
      return false;
    }
    const sent: McpUiUpdateModelContextRequest['params'] = {};
    // A host that names no modality is taken to accept text, the one every model reads.
    if (params.content && (accepts.text || Object.keys(accepts).length === 0)) {
      sent.content = params.content;
    }
    if (params.structuredContent && accepts.structuredContent) {
      sent.structuredContent = params.structuredContent;
    }
    if (!sent.content && !sent.structuredContent) {
      return false;
    }
    await this.request('ui/update-model-context', sent);
    return true;
  }

  get hostContext(): McpUiHostContext {
    return this.context;
  }

  /** Tells the host the height the content needs (ui/notifications/size-changed), now and whenever it changes. */
  private reportSize(): void {
    let last = -1;
    const send = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) {
        return;
      }
      last = height;
      const params: McpUiSizeChangedNotification['params'] = { height };
      this.post({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params });
    };
    new ResizeObserver(send).observe(document.body);
    send();
  }

  private request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private post(message: Message): void {
    // The host's origin is not known inside its sandbox (an opaque origin); the host checks the source window.
    window.parent.postMessage(message, '*');
  }

  private receive(message: Message): void {
    if (message.method === undefined && message.id !== undefined) {
      const waiter = this.pending.get(message.id);
      if (!waiter) {
        return;
      }
      this.pending.delete(message.id);
      if (message.error) {
        waiter.reject(new Error(message.error.message));
      } else {
        waiter.resolve(message.result);
      }
      return;
    }
    const params = message.params ?? {};
    switch (message.method) {
      case 'ui/notifications/tool-input':
        this.handlers.onToolInput?.((params as McpUiToolInputNotification['params']).arguments ?? {});
        break;
      case 'ui/notifications/tool-result':
        this.handlers.onToolResult(params as McpUiToolResultNotification['params'] as ToolResult);
        break;
      case 'ui/notifications/host-context-changed':
        this.applyContext({ ...this.context, ...(params as McpUiHostContext) });
        break;
      case 'ui/resource-teardown':
      case 'ping':
        if (message.id !== undefined) {
          this.post({ jsonrpc: '2.0', id: message.id, result: {} });
        }
        break;
      default:
        if (message.id !== undefined) {
          this.post({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
        }
    }
  }

  /** The host's theme, style variables and container size (McpUiHostContext). */
  private applyContext(context: McpUiHostContext): void {
    this.context = context;
    const root = document.documentElement;
    if (context.theme === 'light' || context.theme === 'dark') {
      root.dataset.theme = context.theme;
      root.style.colorScheme = context.theme;
    }
    for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
      if (name.startsWith('--') && typeof value === 'string') {
        root.style.setProperty(name, value);
      }
    }
    const size = context.containerDimensions ?? {};
    const width = 'width' in size ? size.width : 'maxWidth' in size ? size.maxWidth : undefined;
    root.style.maxWidth = width ? `${width}px` : '';
    const height = 'height' in size ? size.height : 'maxHeight' in size ? size.maxHeight : undefined;
    root.style.maxHeight = height ? `${height}px` : '';
  }
}
