// Builds the MCP App: one self-contained HTML file shipped in the Python package.
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  plugins: [viteSingleFile()],
  build: {
    outDir: "../cortex_mcp/ui",
    emptyOutDir: false,
    rollupOptions: { input: "memory-browser.html" },
  },
});
