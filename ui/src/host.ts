// The host page of `cortex-mcp browse` (and of the browser tests): an MCP client over
// streamable HTTP to the cortex-mcp server, and the official AppBridge relaying for the app,
// which runs in a sandboxed iframe exactly as in Claude Desktop or VS Code.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  getToolUiResourceUri,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import "./host.css";

type Theme = "light" | "dark";

const params = new URLSearchParams(location.search);
const token = params.get("token") ?? "";
const statusLine = document.getElementById("status")!;
const host = document.getElementById("host")!;
let theme: Theme =
  (params.get("theme") as Theme | null) ??
  (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
document.documentElement.dataset.theme = theme;

async function start(): Promise<void> {
  const client = new Client(
    { name: "cortex-mcp browse", version: "0.1.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } } as never,
  );
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", location.origin), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const browse = tools.find((t) => t.name === "cortex_browse");
  const uri = browse ? getToolUiResourceUri(browse) : undefined;
  if (!browse || !uri) throw new Error("this server has no cortex_browse tool with an app");
  const resource = await client.readResource({ uri });
  const html = (resource.contents[0] as { text?: string }).text ?? "";

  const bar = document.createElement("div");
  bar.className = "bar";
  const title = document.createElement("span");
  title.textContent = "cortex-mcp · memory browser (local)";
  const toggle = document.createElement("button");
  toggle.id = "theme";
  toggle.textContent = theme === "dark" ? "Light theme" : "Dark theme";
  bar.append(title, toggle);
  const frame = document.createElement("iframe");
  frame.title = "cortex memory browser";
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  host.replaceChildren(bar, frame);

  const bridge = new AppBridge(
    client,
    { name: "cortex-mcp browse", version: "0.1.0" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme, displayMode: "inline", platform: "web" } },
  );
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.max(480, Math.ceil(height))}px`;
  };
  const args: Record<string, string> = {};
  if (params.get("q")) args.query = params.get("q")!;
  if (params.get("memory")) args.memory_id = params.get("memory")!;
  if (params.get("agent")) args.agent_id = params.get("agent")!;
  bridge.oninitialized = () => {
    void (async () => {
      await bridge.sendToolInput({ arguments: args });
      const result = await client.callTool({ name: "cortex_browse", arguments: args });
      await bridge.sendToolResult(result as never);
      document.body.dataset.ready = "true";
    })();
  };
  toggle.addEventListener("click", () => {
    theme = theme === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = theme;
    toggle.textContent = theme === "dark" ? "Light theme" : "Dark theme";
    bridge.setHostContext({ theme, displayMode: "inline", platform: "web" });
  });
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html;
}

start().catch((err: unknown) => {
  statusLine.textContent = `Could not open the memory browser: ${err instanceof Error ? err.message : String(err)}`;
  document.body.dataset.ready = "error";
});
