// /api-doc/openapi.json and /docs: Swagger UI, served from the installed swagger-ui-dist package (no CDN).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';
import { buildAsyncApiDocument } from '../ws/asyncapi-document.ts';
import { defineRoute, REPLIED, type AnyRoute } from './route.ts';
import { DOCS_CSP, setPageSecurityHeaders } from './security-headers.ts';

const SWAGGER_DIR = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));

// Our own page and initializer: the package's point at the petstore example.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Trading Competition Exchange: API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<p style="font-family: sans-serif; margin: 1em 2em">REST: this page (<a href="/api-doc/openapi.json">OpenAPI 3.1 document</a>). WebSocket protocol at /ws: <a href="/api-doc/asyncapi.json">AsyncAPI 3 document</a>.</p>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/api-doc/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });
};
`;

const ASSET_TYPES = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
  'swagger-initializer.js': 'text/javascript; charset=utf-8',
} as const;
type Asset = keyof typeof ASSET_TYPES;
const ASSETS = Object.keys(ASSET_TYPES) as Asset[];

// A plain string, so an unknown file is a 404 rather than a 400; the enum documents what exists.
const DocsAssetParams = z.object({ asset: z.string().max(64).meta({ description: 'a Swagger UI file', enum: ASSETS }) });

const HOST = /^[A-Za-z0-9.:[\]-]{1,255}$/;

function isAsset(name: string): name is Asset {
  return Object.hasOwn(ASSET_TYPES, name);
}

export function docsRoutes(openApiJson: () => string): AnyRoute[] {
  const cache = new Map<Asset, Buffer>();
  let asyncApi: Record<string, unknown> | undefined;
  const asset = (name: Asset): Buffer => {
    let data = cache.get(name);
    if (data === undefined) {
      data = name === 'swagger-initializer.js' ? Buffer.from(INITIALIZER) : readFileSync(join(SWAGGER_DIR, name));
      cache.set(name, data);
    }
    return data;
  };
  return [
    defineRoute({
      method: 'get',
      path: '/api-doc/openapi.json',
      access: 'public',
      tag: 'Docs',
      summary: 'This OpenAPI 3.1 document',
      success: { status: 200, description: 'the OpenAPI document', contentType: 'application/json' },
      errors: [],
      handle: (call) => {
        call.res.setHeader('content-type', 'application/json; charset=utf-8');
        call.res.end(openApiJson());
        return REPLIED;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api-doc/asyncapi.json',
      access: 'public',
      tag: 'Docs',
      summary: 'The AsyncAPI 3 document of the WebSocket protocol',
      description: 'Generated from the zod schemas the server parses and builds its frames with; its server is named by the request\'s Host.',
      success: { status: 200, description: 'the AsyncAPI document', contentType: 'application/json' },
      errors: [],
      handle: (call) => {
        const host = call.req.headers.host;
        const doc = (asyncApi ??= buildAsyncApiDocument());
        const named = typeof host === 'string' && HOST.test(host) ? { ...doc, servers: { exchange: { ...(doc['servers'] as { exchange: object }).exchange, host } } } : doc;
        call.res.setHeader('content-type', 'application/json; charset=utf-8');
        call.res.end(JSON.stringify(named));
        return REPLIED;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      access: 'public',
      tag: 'Docs',
      summary: 'Interactive API reference (Swagger UI)',
      success: { status: 200, description: 'an HTML page', contentType: 'text/html' },
      errors: [],
      handle: (call) => {
        call.res.setHeader('content-type', 'text/html; charset=utf-8');
        setPageSecurityHeaders(call.res, DOCS_CSP);
        call.res.end(PAGE);
        return REPLIED;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/{asset}',
      access: 'public',
      tag: 'Docs',
      summary: 'The files of the interactive reference',
      params: DocsAssetParams,
      success: { status: 200, description: 'a stylesheet, script or icon', contentType: 'text/css', alternateContentTypes: ['text/javascript', 'image/png'] },
      errors: ['not_found'],
      handle: (call) => {
        const name = call.params.asset;
        if (!isAsset(name)) throw new DomainError('not_found', `no such file: /docs/${name}`);
        let data: Buffer;
        try {
          data = asset(name);
        } catch {
          throw new DomainError('not_found', `${name} is not installed`);
        }
        call.res.setHeader('content-type', ASSET_TYPES[name]);
        call.res.setHeader('cache-control', 'public, max-age=3600');
        call.res.end(data);
        return REPLIED;
      },
    }),
  ];
}
