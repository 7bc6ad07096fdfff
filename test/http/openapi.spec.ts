// The OpenAPI document: valid OpenAPI 3.1 by a maintained validator, and naming every route the
// express app serves (read from the app's own router, not from our route table).
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import type express from 'express';
import { createHttpApp } from '../../src/server/http/app.ts';
import { Client } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';
import { ROUTES, samplePath } from './support/sample-paths.ts';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { schema: { enum?: string[] } }> }> }>>;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** method + OpenAPI-style path of every route mounted on the express router. */
function servedRoutes(app: express.Express): string[] {
  const stack = (app.router as unknown as { stack: RouterLayer[] }).stack;
  const out: string[] = [];
  for (const layer of stack) {
    if (layer.route === undefined) continue;
    const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') out.push(`${method} ${path}`);
  }
  return out.sort();
}

describe('HTTP OpenAPI document', () => {
  let server: HttpTestServer;
  let c: Client;
  let doc: OpenApiDoc;

  before(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    doc = (await c.request<OpenApiDoc>('GET', '/api-doc/openapi.json')).body;
  });
  after(() => server.close());

  it('is valid OpenAPI 3.1 (swagger-parser)', async () => {
    expect(doc.openapi).to.equal('3.1.0');
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it('documents every route the server serves, and nothing it does not', () => {
    const served = servedRoutes(createHttpApp(server.context).express);
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      .sort();
    expect(served.length).to.be.greaterThan(25);
    expect(documented).to.deep.equal(served);
  });

  it('every documented route answers (not the unknown-route 404)', async () => {
    for (const route of ROUTES) {
      const r = await c.request(route.method.toUpperCase(), samplePath(route), route.access === 'admin' ? { admin: true } : {});
      expect(r.code, `${route.method} ${route.path}`).to.not.equal('not_found');
      expect(r.code, `${route.method} ${route.path}`).to.not.equal('method_not_allowed');
    }
  });

  it('lists the error codes of each route with their statuses, e.g. every admission refusal of POST /api/v1/orders', () => {
    const responses = doc.paths['/api/v1/orders']?.['post']?.responses ?? {};
    const codes = (status: string) => responses[status]?.headers?.['x-error-code']?.schema.enum ?? [];
    expect(Object.keys(responses).sort()).to.deep.equal(['200', '201', '400', '401', '403', '404', '409', '413', '429', '500', '503']);
    // A read key may not trade (competition-rules.md, "Keys").
    expect(codes('403')).to.deep.equal(['insufficient_scope']);
    expect(codes('400')).to.include.members(['invalid_market', 'invalid_price', 'tick_size_violation', 'invalid_quantity', 'quantity_below_minimum', 'invalid_request']);
    expect(codes('409')).to.include.members(['trading_disabled', 'market_disabled', 'market_settled', 'position_limit_exceeded']);
    expect(codes('404')).to.deep.equal(['market_not_configured']);
    expect(codes('429')).to.deep.equal(['rate_limited']);
    expect(codes('500')).to.deep.equal(['overflow', 'internal']);
    const cancel = doc.paths['/api/v1/orders/{order_id}']?.['delete']?.responses ?? {};
    expect(cancel['403']?.headers?.['x-error-code']?.schema.enum).to.deep.equal(['order_not_owned', 'insufficient_scope']);
  });
});
