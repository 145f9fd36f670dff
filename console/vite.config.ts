import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * Builds the console into dist/console, which src/http/console.ts serves at /console/.
 * Preact's JSX through esbuild's automatic runtime: no React plugin is needed. Every
 * asset is a file of its own (no inline script, no data: script), so the page runs under
 * a strict Content-Security-Policy.
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  logLevel: "warn",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: fileURLToPath(new URL("../dist/console", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // Modern browsers preload modules natively; the polyfill would only add code.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
