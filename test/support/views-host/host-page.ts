// The host side of MCP Apps in a browser page, built on the extension's own
// AppBridge and PostMessageTransport (@modelcontextprotocol/ext-apps/app-bridge),
// as hosts such as Claude or VS Code embed views: a sandboxed iframe on another
// origin, the tool's input and result sent once the view has initialised, and the
// view's tools/call and resources/read forwarded to the MCP server through the
// test's real MCP client (window.host*, bound by Playwright's exposeFunction).
// It accepts ui/update-model-context (text and structured content), as Claude
// and VS Code do, and keeps every update in window.modelContext for the test.
// Bundled by esbuild in test/support/views-browser.ts; never part of the product.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostContext, McpUiUpdateModelContextRequest } from '@modelcontextprotocol/ext-apps';

interface Mount {
  readonly viewUrl: string;
  readonly toolArguments: Record<string, unknown>;
  readonly toolResult: Record<string, unknown>;
  readonly hostContext: McpUiHostContext;
  /** false: a host that declares no updateModelContext (the view must not send it). */
  readonly acceptsModelContext?: boolean;
}

declare global {
  interface Window {
    mountView(mount: Mount): Promise<void>;
    hostCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
    hostReadResource(params: { uri: string }): Promise<Record<string, unknown>>;
    /** tools/list as the host's client sees it (it declared the UI extension, so app-only tools are in it). */
    hostListTools(): Promise<Array<{ name: string; _meta?: { ui?: { visibility?: string[] } } }>>;
    /** Every tools/call the view made, with whether the host let it through. */
    viewCalls: Array<{ name: string; forwarded: boolean }>;
    /** Every ui/update-model-context the view sent, in order (a host keeps only the last for the model). */
    modelContext: Array<McpUiUpdateModelContextRequest['params']>;
  }
}

window.viewCalls = [];
window.modelContext = [];

window.mountView = async ({ viewUrl, toolArguments, toolResult, hostContext, acceptsModelContext = true }) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'MCP App view';
  frame.style.cssText = 'width:100%;border:1px solid #dadce0;border-radius:8px;height:200px';
  document.body.appendChild(frame);
  const bridge = new AppBridge(
    null,
    { name: 'gsc-test-host', version: '1.0.0' },
    {
      serverTools: {},
      serverResources: {},
      ...(acceptsModelContext ? { updateModelContext: { text: {}, structuredContent: {} } } : {}),
    },
    { hostContext },
  );
  bridge.oncalltool = async (params) => {
    // What hosts do: a view may call only the tools whose visibility includes "app" (the default is both).
    const tool = (await window.hostListTools()).find((t) => t.name === params.name);
    const forwarded = tool !== undefined && (tool._meta?.ui?.visibility ?? ['model', 'app']).includes('app');
    window.viewCalls.push({ name: params.name, forwarded });
    if (!forwarded) {
      throw new Error(`Tool ${params.name} is not available to this view`);
    }
    return (await window.hostCallTool(params)) as never;
  };
  bridge.onupdatemodelcontext = async (params) => {
    window.modelContext.push(params);
    return {};
  };
  bridge.onreadresource = async (params) => (await window.hostReadResource(params)) as never;
  bridge.onsizechange = ({ height }) => {
    if (height) {
      frame.style.height = `${height}px`;
    }
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.src = viewUrl;
  await initialized;
  await bridge.sendToolInput({ arguments: toolArguments });
  await bridge.sendToolResult(toolResult as never);
};
