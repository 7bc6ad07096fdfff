// Contract checks: every REST response the test suite receives is validated against the OpenAPI
// document and every WebSocket frame against the AsyncAPI document, both built exactly as the server
// serves them (/api-doc/openapi.json, /api-doc/asyncapi.json). The test clients call these, so a
// mismatch fails the test that caused it; a mismatch swallowed by a test is still recorded, and the
// root hook in test/contract.spec.ts fails the test after which it was recorded.
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { allRoutes } from '../../src/server/http/app.ts';
import { buildOpenApiDocument } from '../../src/server/http/openapi-document.ts';
import { buildAsyncApiDocument } from '../../src/server/ws/asyncapi-document.ts';

type Json = Record<string, unknown>;

interface Operation {
  readonly responses: Record<string, { headers?: Record<string, { schema?: { enum?: string[] } }>; content?: Record<string, { schema?: Json }> }>;
}

interface PathEntry {
  readonly template: string;
  readonly pattern: RegExp;
  readonly params: number;
  readonly item: Record<string, Operation>;
}

const violations: string[] = [];
const TRANSPORT_STATUSES = new Set([408, 431]);

/** Violations recorded since the last call (the root afterEach hook drains them). */
export function drainContractViolations(): string[] {
  return violations.splice(0, violations.length);
}

function violation(text: string): Error {
  violations.push(text);
  return new Error(`contract: ${text}`);
}

function errorsText(validate: ValidateFunction): string {
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
}

class OpenApiContract {
  private readonly paths: PathEntry[];
  private readonly components: Json;
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(doc: Json) {
    addFormats.default(this.ajv);
    this.components = doc['components'] as Json;
    this.paths = Object.entries(doc['paths'] as Record<string, Record<string, Operation>>)
      .map(([template, item]) => ({
        template,
        item,
        params: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** Throws (and records) when the response is not one the document allows. */
  check(method: string, url: string, status: number, headers: Headers, text: string): void {
    const path = new URL(url).pathname;
    const m = method.toLowerCase();
    // An undocumented path or method is the router's 404/405, which no route declares.
    const entry = this.paths.find((p) => p.pattern.test(path) && p.item[m] !== undefined);
    if (entry === undefined) return;
    // Node answers these itself, before any route runs (docs/api.md "HTTP edges"): no route declares them.
    if (TRANSPORT_STATUSES.has(status)) return;
    const op = entry.item[m] as Operation;
    const response = op.responses[String(status)];
    const where = `${method.toUpperCase()} ${path} (${entry.template}) -> ${status}`;
    if (response === undefined) throw violation(`${where}: status not documented (documented: ${Object.keys(op.responses).join(', ')})`);
    const code = headers.get('x-error-code');
    const codes = response.headers?.['x-error-code']?.schema?.enum;
    if (status >= 400 && codes !== undefined && (code === null || !codes.includes(code))) throw violation(`${where}: x-error-code ${String(code)} not documented for this status (${codes.join(', ')})`);
    const type = (headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (status === 204 || text === '') return;
    const content = response.content;
    if (content === undefined) throw violation(`${where}: a body of ${type} where none is documented`);
    // Documented types may carry parameters (text/plain; version=0.0.4): compare the media types.
    const media = Object.entries(content).find(([k]) => (k.split(';')[0] ?? '').trim() === type)?.[1];
    if (media === undefined) throw violation(`${where}: content-type ${type} not documented (${Object.keys(content).join(', ')})`);
    if (type !== 'application/json' || media.schema === undefined) return;
    const key = `${m} ${entry.template} ${status}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ allOf: [media.schema], components: this.components });
      this.validators.set(key, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw violation(`${where}: body is not JSON`);
    }
    if (!validate(body)) throw violation(`${where}: ${errorsText(validate)}; body ${text.slice(0, 300)}`);
  }
}

class AsyncApiContract {
  private readonly byType = new Map<string, { name: string; validate: ValidateFunction }[]>();

  constructor(doc: Json) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats.default(ajv);
    const components = doc['components'] as { schemas: Record<string, Json>; messages: Record<string, { payload: { $ref: string } }> };
    const operations = doc['operations'] as Record<string, { action: string; messages: { $ref: string }[] }>;
    for (const op of Object.values(operations)) {
      if (op.action !== 'send') continue;
      for (const ref of op.messages) {
        const name = ref.$ref.split('/').pop() as string;
        const payloadRef = components.messages[name]?.payload.$ref as string;
        const schema = components.schemas[payloadRef.split('/').pop() as string] as { properties: { type: { const: string } } };
        const type = schema.properties.type.const;
        const validate = ajv.compile({ allOf: [{ $ref: payloadRef }], components: { schemas: components.schemas } });
        this.byType.set(type, [...(this.byType.get(type) ?? []), { name, validate }]);
      }
    }
  }

  /** Returns the violation text, or null when some server message of the document matches. */
  check(text: string): string | null {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return `a frame that is not JSON: ${text.slice(0, 200)}`;
    }
    const type = typeof frame === 'object' && frame !== null ? (frame as Json)['type'] : undefined;
    const candidates = typeof type === 'string' ? this.byType.get(type) : undefined;
    if (candidates === undefined) return `a frame of undocumented type ${JSON.stringify(type)}: ${text.slice(0, 200)}`;
    const failures: string[] = [];
    for (const c of candidates) {
      if (c.validate(frame)) return null;
      failures.push(`${c.name}: ${errorsText(c.validate)}`);
    }
    return `frame matches no server message (${failures.join(' | ')}): ${text.slice(0, 300)}`;
  }
}

let openApi: OpenApiContract | undefined;
let asyncApi: AsyncApiContract | undefined;

function openApiContract(): OpenApiContract {
  if (openApi === undefined) {
    let json = '';
    const routes = allRoutes(() => json);
    json = JSON.stringify(buildOpenApiDocument(routes, { perUserRequestsPerSecond: 20 }));
    openApi = new OpenApiContract(JSON.parse(json) as Json);
  }
  return openApi;
}

/** Checks one REST response against the OpenAPI document; throws (and records) a mismatch. */
export function checkRestResponse(method: string, url: string, status: number, headers: Headers, text: string): void {
  openApiContract().check(method, url, status, headers, text);
}

/** fetch, with the response checked against the OpenAPI document (its body stays readable). */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const text = await res.clone().text();
  checkRestResponse(init.method ?? 'GET', url, res.status, res.headers, text);
  return res;
}

/** Checks one frame the server sent; returns the violation (also recorded) or null. */
export function checkServerFrame(text: string): string | null {
  asyncApi ??= new AsyncApiContract(buildAsyncApiDocument());
  const problem = asyncApi.check(text);
  if (problem !== null) violations.push(`ws: ${problem}`);
  return problem;
}
