// The OpenAPI 3.1 document, generated from the route declarations and their zod schemas: every route,
// its parameters, body, success response and every error it can answer with (grouped by status, the
// codes listed and enumerated in the x-error-code header).
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERRORS, type ErrorCode } from '../../commands/errors.ts';
import { AdminMessageBody, AmendOrderBody, ConfigLoadBody, CreateUserBody, MarketDefinitionBody, MarketPatchBody, SettleMarketBody, SubmitOrderBody } from '../../commands/schemas.ts';
import { ErrorBody } from './response-schemas.ts';
import { readsBody, type AnyRoute } from './route.ts';

const BODY_NAMES = new Map<z.ZodType, string>([
  [SubmitOrderBody, 'SubmitOrderBody'],
  [AmendOrderBody, 'AmendOrderBody'],
  [CreateUserBody, 'CreateUserBody'],
  [AdminMessageBody, 'AdminMessageBody'],
  [MarketDefinitionBody, 'MarketDefinitionBody'],
  [MarketPatchBody, 'MarketPatchBody'],
  [SettleMarketBody, 'SettleMarketBody'],
  [ConfigLoadBody, 'ConfigLoadBody'],
]);

/** Every code a route can answer with: its own, and those its access, inputs and method imply. */
export function routeErrors(route: AnyRoute): ErrorCode[] {
  const codes: ErrorCode[] = [...route.errors];
  if (route.params !== undefined || route.query !== undefined) codes.push('invalid_request');
  if (route.access === 'trader') codes.push('missing_api_key', 'invalid_api_key', 'unauthenticated');
  if (route.access === 'trader' && route.scope === 'trade') codes.push('insufficient_scope');
  if (route.rateLimited === true) codes.push('rate_limited');
  if (route.access === 'admin') codes.push('missing_admin_token', 'invalid_admin_token', 'too_many_auth_failures');
  if (route.access === 'trader' && route.method !== 'get') codes.push('admission_queue_full');
  if (readsBody(route)) codes.push('invalid_request', 'body_too_large');
  if (route.method !== 'get') codes.push('service_unavailable', 'not_leader');
  codes.push('internal');
  return [...new Set(codes)];
}

function errorResponses(route: AnyRoute, perSecond: number): Record<string, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrors(route)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, ResponseConfig> = {};
  for (const [status, codes] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    const lines = codes.map((c) => `- \`${c}\`: ${c === 'rate_limited' ? `per-user rate limit exceeded: max ${perSecond} ops/sec` : ERRORS[c].message}`);
    const headers: Record<string, { description: string; schema: { type: 'string' | 'integer'; enum?: string[] } }> = {
      'x-error-code': { description: 'the machine-readable error code', schema: { type: 'string', enum: codes } },
    };
    if (status === 429) headers['retry-after'] = { description: 'seconds until a request will be accepted again', schema: { type: 'integer' } };
    out[String(status)] = {
      description: `Error codes (x-error-code):\n${lines.join('\n')}`,
      headers,
      content: { 'application/json': { schema: ErrorBody } },
    };
  }
  return out;
}

export interface OpenApiOptions {
  readonly perUserRequestsPerSecond: number;
}

export function buildOpenApiDocument(routes: readonly AnyRoute[], options: OpenApiOptions): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A trader API key (exch_...), issued by POST /api/v1/admin/users' });
  registry.registerComponent('securitySchemes', 'AdminBearer', { type: 'http', scheme: 'bearer', description: 'ADMIN_API_TOKEN' });
  const named = new Map<z.ZodType, z.ZodType>();
  const bodySchema = (schema: z.ZodType): z.ZodType => {
    const name = BODY_NAMES.get(schema);
    if (name === undefined) return schema;
    let registered = named.get(schema);
    if (registered === undefined) {
      // A copy with an id becomes a named component; the shared schema itself is left untouched.
      registered = schema.meta({ id: name });
      named.set(schema, registered);
    }
    return registered;
  };

  for (const route of routes) {
    const success: ResponseConfig = { description: route.success.description };
    const contentType = route.success.contentType ?? 'application/json';
    success.content = { [contentType]: { schema: route.success.schema ?? (contentType === 'application/json' ? { type: 'object' } : { type: 'string' }) } };
    for (const type of route.success.alternateContentTypes ?? []) success.content[type] = { schema: { type: 'string' } };
    if (route.rateLimited === true) {
      success.headers = {
        'x-ratelimit-limit': { description: 'requests allowed per second (PER_USER_REQUESTS_PER_SECOND)', schema: { type: 'integer' } },
        'x-ratelimit-remaining': { description: 'requests left in the current one-second window', schema: { type: 'integer' } },
      };
    }
    const request: NonNullable<RouteConfig['request']> = {};
    if (route.params !== undefined) request.params = route.params as z.ZodObject;
    if (route.query !== undefined) request.query = route.query as z.ZodObject;
    if (route.body !== undefined) {
      // A body the route does without (the freeze's optional label) is not required.
      request.body = { required: !route.body.safeParse(undefined).success, content: { 'application/json': { schema: bodySchema(route.body) } } };
      for (const type of route.bodyContentTypes ?? []) request.body.content[type] = { schema: { type: 'string' } };
    }
    const config: RouteConfig = {
      method: route.method,
      path: route.path,
      tags: [route.tag],
      summary: route.summary,
      operationId: `${route.method}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      request,
      responses: { [String(route.success.status)]: success, ...(route.success.alternate === undefined ? {} : { [String(route.success.alternate.status)]: { ...success, description: route.success.alternate.description } }), ...errorResponses(route, options.perUserRequestsPerSecond) },
    };
    if (route.description !== undefined) config.description = route.description;
    if (route.access === 'trader') config.security = [{ ApiKey: [] }];
    else if (route.access === 'admin') config.security = [{ AdminBearer: [] }];
    registry.registerPath(config);
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Trading Competition Exchange',
      version: '1.0.0',
      description:
        'A limit-order exchange for trading competitions. Every error is `{"error": "<text>"}` with the machine-readable code in the ' +
        '`x-error-code` header. Real-time data and order entry: WebSocket at /ws (see docs/api.md).',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Public', description: 'No authentication' },
      { name: 'Trader', description: 'Header x-api-key; rate limited per trader' },
      { name: 'Admin', description: 'Header Authorization: Bearer <ADMIN_API_TOKEN>; not rate limited' },
      { name: 'Practice', description: 'A practice exchange (npm run practice, docs/practice.md): reading its play needs nothing, steering it the admin token; elsewhere 404 not_practice' },
      { name: 'Docs', description: 'This document and its interactive reference' },
    ],
  });
}
