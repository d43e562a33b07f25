// Builds the console (issue 24) into dist/console: `npm run build:console`, also part of `npm run build`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const appRoot = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: appRoot,
  // Relative asset URLs: the same build serves from any host and path prefix.
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/console', import.meta.url)),
    emptyOutDir: true,
    // No inline script or style: the console is served with a strict Content-Security-Policy.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
