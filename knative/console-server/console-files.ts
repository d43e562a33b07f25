import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One file of the build, read once at start with its gzip form: the whole console is a few hundred KB. */
export interface ConsoleFile {
  body: Buffer;
  gzipped: Buffer | undefined;
  contentType: string;
  /** Vite's hashed file names under assets/ never change content: cached for a year. */
  immutable: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt']);

/**
 * Every file of the build by URL path (`/index.html`, `/assets/index-3f2a.js`). Read into memory once,
 * so no request path ever reaches the file system (no traversal to guard) and a request costs no I/O.
 */
export function readConsoleFiles(folder: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = `/${relative(folder, path).split(sep).join('/')}`;
    const extension = extname(entry.name);
    const body = readFileSync(path);
    files.set(urlPath, {
      body,
      gzipped: COMPRESSIBLE.has(extension) ? gzipSync(body) : undefined,
      contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
      immutable: urlPath.startsWith('/assets/'),
    });
  }
  if (!files.has('/index.html'))
    throw new Error(`${folder} holds no index.html: build the console (npm run build:console)`);
  return files;
}
