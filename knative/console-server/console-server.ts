// The console's static server (issue 24): the Vite build of functions/console/app under a strict
// Content-Security-Policy, `/config.json` telling the app where the API is, and the single-page
// application's fallback to index.html. The image runs it as FUNCTION_TARGET=console; `npm start`
// and `npm run fleet` run it on a second port.
import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { gzipSync } from 'node:zlib';
import { readConsoleFiles, type ConsoleFile } from './console-files.ts';
import { negotiateContentCoding } from './content-coding.ts';
import { limitUnreadableRequests, listenOnSetting } from '../node-http/limited-http-server.ts';

export interface RunningConsole {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * No inline script or style anywhere (Vite's build has none: functions/console/app/vite.config.ts), so
 * `'self'` is all the page may run; it may fetch only from itself, the API and the OpenID Provider.
 */
export function contentSecurityPolicy(settings: Pick<ConsoleServerOptions, 'apiBaseUrl' | 'connectOrigins'>): string {
  const connect = ["'self'", settings.apiBaseUrl, ...settings.connectOrigins].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The path of a request target; undefined for a target that is no URL path: `//`, `/\\`, and the
 * asterisk form (`OPTIONS *`), which names the server, not a file (resolved as a path it read `/*`).
 */
function pathOf(target: string | undefined): string | undefined {
  if (target === undefined || target === '*') return undefined;
  try {
    return new URL(target, 'http://console').pathname;
  } catch {
    return undefined;
  }
}

/** The request listener over the files of one build. */
export function consoleRequestListener(
  files: Map<string, ConsoleFile>,
  settings: Pick<ConsoleServerOptions, 'apiBaseUrl' | 'connectOrigins'>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const common = {
    'content-security-policy': contentSecurityPolicy(settings),
    'x-content-type-options': 'nosniff',
    // The OIDC redirect carries the authorization code in the URL: never send it on as a Referer.
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
  const config = configFile(settings.apiBaseUrl);
  return (req, res) => {
    const path = pathOf(req.url);
    if (path === undefined) {
      // `GET //`, `OPTIONS *`: no file path; an exception here would end the process (and, in local mode, the API with it).
      res.writeHead(400, { ...common, 'content-type': 'text/plain; charset=utf-8' });
      res.end('bad request target\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...common, allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { ...common, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : 'ok\n');
      return;
    }
    const file =
      path === '/config.json' ? config : (files.get(path === '/favicon.ico' ? FAVICON : path) ?? fallback(files, path));
    if (!file) {
      res.writeHead(404, { ...common, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : 'not found\n');
      return;
    }
    const coding = negotiateContentCoding(req.headers['accept-encoding'], file.gzipped !== undefined);
    if (coding === undefined) {
      res.writeHead(406, { ...common, 'content-type': 'text/plain; charset=utf-8', vary: 'Accept-Encoding' });
      res.end(req.method === 'HEAD' ? undefined : 'no acceptable content coding: gzip or identity\n');
      return;
    }
    const gzip = coding === 'gzip';
    const body = gzip ? file.gzipped! : file.body;
    res.writeHead(200, {
      ...common,
      'content-type': file.contentType,
      'content-length': body.byteLength,
      // Hashed assets never change; index.html and config.json are revalidated so a new build shows at once.
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'Accept-Encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/**
 * The icon index.html links; `/favicon.ico` answers it too, for the clients that ask there without reading
 * the page (a 404 on every page otherwise, issue 44, item 15).
 */
const FAVICON = '/favicon.svg';

/** The app's routes are not files: a path without a file extension gets index.html; a missing asset stays 404. */
function fallback(files: Map<string, ConsoleFile>, path: string): ConsoleFile | undefined {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.includes('.') ? undefined : files.get('/index.html');
}

function configFile(apiBaseUrl: string): ConsoleFile {
  const body = Buffer.from(`${JSON.stringify({ apiBaseUrl })}\n`);
  return { body, gzipped: gzipSync(body), contentType: 'application/json; charset=utf-8', immutable: false };
}

/** What the static server serves: the API's origin, more origins to connect to, the build. */
export interface ConsoleSite {
  apiBaseUrl: string;
  connectOrigins: readonly string[];
  assetsDir: string;
}

/** The site, and where: the port (0: a free one) and the setting that chose it (`PORT` unless named). */
export interface ConsoleServerOptions extends ConsoleSite {
  port: number;
  portSetting?: string;
  /** MAX_REQUEST_HEADER_BYTES, as the API's servers take it; node's default (16 KiB) when not given. */
  maxHeaderBytes?: number;
}

/** The console's server listening before it serves its site: until `serve`, every request is 503. */
export interface BoundConsole extends RunningConsole {
  /** Reads the build and serves it from now on. */
  serve(site: ConsoleSite): void;
}

/** A certificate and key (PEM) to serve the console over HTTPS with: local mode's with LOCAL_HTTPS, as its API's. */
export interface ConsoleTls {
  cert: string;
  key: string;
}

/**
 * Binds the console's port before anything slow (its build, the API beside it in local mode), so a port
 * in use stops start-up at once with a message naming `portSetting` (`CONSOLE_PORT`, `PORT`), not a stack.
 * Every answer carries an `Audit-Id`, and a request node cannot parse (431 for headers over
 * `maxHeaderBytes`) gets the API's JSON refusal, as the API's servers answer (issue 44, item 10).
 */
export async function bindConsoleServer(
  port: number,
  portSetting: string,
  host?: string,
  tls?: ConsoleTls,
  maxHeaderBytes: number = maxHeaderSize,
): Promise<BoundConsole> {
  let serveSite: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // No request here is audited (no caller, nothing changes), but each answer has an id to quote, as the API's.
    res.setHeader('audit-id', randomUUID());
    if (serveSite) return serveSite(req, res);
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
    res.end('the console is starting\n');
  };
  const server: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, listener) : createServer(listener);
  limitUnreadableRequests(server, { maxHeaderBytes });
  const bound = await listenOnSetting(server, port, host, portSetting);
  return {
    port: bound,
    url: `${tls ? 'https' : 'http'}://${host === undefined || host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${bound}`,
    serve(site) {
      serveSite = consoleRequestListener(readConsoleFiles(site.assetsDir), site);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves the build in `assetsDir` on `port` (0: a free one) of `host`. */
export async function startConsoleServer(options: ConsoleServerOptions, host?: string): Promise<RunningConsole> {
  const bound = await bindConsoleServer(
    options.port,
    options.portSetting ?? 'PORT',
    host,
    undefined,
    options.maxHeaderBytes,
  );
  try {
    bound.serve(options);
  } catch (error) {
    await bound.close();
    throw error;
  }
  return bound;
}
