// Builds the host page of `cortex-mcp browse`: the official AppBridge and MCP client, one file.
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  plugins: [viteSingleFile()],
  build: {
    outDir: "../cortex_mcp/ui",
    emptyOutDir: false,
    rollupOptions: { input: "browse-host.html" },
  },
});
