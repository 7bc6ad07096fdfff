// One HTTP request sent as given (any method with any body, chunked or with a Content-Length), for the
// tests that need what fetch will not send: a body on GET or DELETE, a chunked oversize body. The
// response is checked against the OpenAPI document like every other in the suite.
import { request } from 'node:http';
import { checkRestResponse } from '../../support/contract.ts';

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Sent with Transfer-Encoding: chunked instead of a Content-Length. */
  readonly chunked?: boolean;
}

export interface RawReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export function sendRaw(base: string, r: RawRequest): Promise<RawReply> {
  const url = new URL(r.path, base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...r.headers };
    // Explicitly: Node's client frames no body of a DELETE or GET by default (it sends the bytes bare).
    if (r.body !== undefined) headers[r.chunked === true ? 'transfer-encoding' : 'content-length'] = r.chunked === true ? 'chunked' : String(Buffer.byteLength(r.body));
    const req = request({ host: url.hostname, port: url.port, method: r.method, path: r.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) h.set(name, Array.isArray(value) ? value.join(', ') : value);
        const text = Buffer.concat(chunks).toString('utf8');
        checkRestResponse(r.method, url.href, res.statusCode ?? 0, h, text);
        resolve({ status: res.statusCode ?? 0, headers: h, text });
      });
      res.on('error', reject);
    });
    // A server that answers early (413) may close before the whole body is written.
    req.on('error', reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}
