// Serves the dashboard (dist/web, built by `npm run build:web`) in front of the API: GET or HEAD of `/`
// (and /index.html) and of /assets/<file> are answered from files read once at startup, gzipped once
// when the client accepts it; every other request goes to the API handler untouched. Asset names carry
// a content hash, so they may be cached for good; the page itself is always revalidated.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DASHBOARD_CSP, setPageSecurityHeaders } from './http/security-headers.ts';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface StaticFile {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly type: string;
  readonly cache: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Where `npm run build:web` writes the dashboard. */
export const DASHBOARD_DIR = new URL('../../dist/web', import.meta.url).pathname;

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Dashboard not built</title><p>The dashboard has not been built. Run <code>npm run build:web</code> ' +
  '(<code>npm start</code> does it first) and reload. The API is served as usual; its reference is at <a href="/docs">/docs</a>.</p>';

function staticFile(body: Buffer, type: string, cache: string): StaticFile {
  return { body, gzipped: gzipSync(body), type, cache };
}

/** The dashboard's files by URL path; only the index page (explaining how to build) when not built. */
export function loadDashboard(dir: string = DASHBOARD_DIR): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    files.set('/', staticFile(Buffer.from(NOT_BUILT_PAGE), TYPES['.html'] ?? 'text/html', 'no-cache'));
    return files;
  }
  const page = staticFile(readFileSync(index), TYPES['.html'] ?? 'text/html', 'no-cache');
  files.set('/', page);
  files.set('/index.html', page);
  const assets = join(dir, 'assets');
  if (existsSync(assets)) {
    for (const name of readdirSync(assets)) {
      files.set(`/assets/${name}`, staticFile(readFileSync(join(assets, name)), TYPES[extname(name)] ?? 'application/octet-stream', 'public, max-age=31536000, immutable'));
    }
  }
  return files;
}

function send(req: IncomingMessage, res: ServerResponse, file: StaticFile): void {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzipped : file.body;
  res.statusCode = 200;
  res.setHeader('content-type', file.type);
  res.setHeader('cache-control', file.cache);
  res.setHeader('content-length', body.length);
  res.setHeader('vary', 'accept-encoding');
  if (file.type.startsWith('text/html')) setPageSecurityHeaders(res, DASHBOARD_CSP);
  else res.setHeader('x-content-type-options', 'nosniff');
  if (gzip) res.setHeader('content-encoding', 'gzip');
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Wraps the API handler: dashboard paths are served here, the rest is the API's. */
export function withDashboard(api: RequestHandler, files: Map<string, StaticFile> = loadDashboard()): RequestHandler {
  return (req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const file = files.get(q === -1 ? url : url.slice(0, q));
      if (file !== undefined) {
        send(req, res, file);
        return;
      }
    }
    api(req, res);
  };
}
