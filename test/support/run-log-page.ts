// The run-log viewer on a page of its own origin, as the console serves it: built by Vite from
// run-log-page-entry.js (RunLogView with the stream URL and token of `location.hash`), and
// served with the console's strict Content-Security-Policy, so the stream is cross-origin (CORS)
// and any inline style or script the viewer tried would be refused by the browser.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { build } from 'vite';
import { listen } from '../../knative/node-http/limited-http-server.ts';
import { REPO_ROOT } from './function-servers.ts';

const ENTRY = join(REPO_ROOT, 'test/support/run-log-page-entry.js');

const HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Run log</title></head>
  <body><main><h1>Run log</h1><div id="app"></div></main><script type="module" src="./entry.js"></script></body>
</html>
`;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export interface RunLogPage {
  /** The page's origin: CORS_ALLOWED_ORIGINS of the API under test. */
  origin: string;
  /** Builds the page (call once the origins the page may connect to are known). */
  build(connectSources: string[]): Promise<void>;
  /** The page's address for a stream and a token. */
  url(streamUrl: string, token: string): string;
  close(): Promise<void>;
}

/** Starts the page's server at once (its origin is needed before the API starts); the page is built later. */
export async function startRunLogPage(): Promise<RunLogPage> {
  const folder = await mkdtemp(join(tmpdir(), 'run-log-page-'));
  const outDir = join(folder, 'dist');
  let policy = "default-src 'none'";
  const server: Server = createServer(async (request, response) => {
    const path = normalize(new URL(request.url ?? '/', 'http://page').pathname).replace(/^\/+/, '') || 'index.html';
    try {
      const body = await readFile(join(outDir, path));
      response.writeHead(200, {
        'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
        'content-security-policy': policy,
      });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  const origin = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  return {
    origin,
    async build(connectSources) {
      // The console's policy: nothing inline, styles and scripts from the page's own origin only.
      policy = `default-src 'none'; script-src 'self'; style-src 'self'; connect-src ${connectSources.join(' ')}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
      await build({
        root: folder,
        base: '../console/',
        mode: 'production',
        configFile: false,
        logLevel: 'warn',
        oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
        build: {
          outDir,
          emptyOutDir: true,
          assetsInlineLimit: 0,
          modulePreload: { polyfill: false },
          rollupOptions: { input: ENTRY, output: { entryFileNames: 'entry.js', assetFileNames: '[name][extname]' } },
        },
      });
      const styles = (await readdir(outDir)).filter((name) => name.endsWith('.css'));
      const links = styles.map((name) => `<link rel="stylesheet" href="./${name}" />`).join('');
      await writeFile(join(outDir, 'index.html'), HTML.replace('</head>', `${links}</head>`));
    },
    url: (streamUrl, token) => `${origin}/#${new URLSearchParams({ stream: streamUrl, token }).toString()}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await rm(folder, { recursive: true, force: true });
    },
  };
}
