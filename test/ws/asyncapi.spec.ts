// The AsyncAPI 3 document of the WebSocket protocol: valid by @asyncapi/parser, generated from the zod
// schemas the server uses, with every client op and every server frame, and examples that the schemas
// (and so the server's parser) accept.
import { Parser } from '@asyncapi/parser';
import { expect } from 'chai';
import { CLIENT_MESSAGE_SCHEMAS, parseClientMessage } from '../../src/server/ws/client-messages.ts';
import { SERVER_MESSAGES } from '../../src/server/ws/server-messages.ts';
import { Client } from '../http/support/client.ts';
import { startHttpTestServer, type HttpTestServer } from '../http/support/http-server.ts';

interface AsyncApiDoc {
  asyncapi: string;
  servers: { exchange: { host: string; pathname: string } };
  components: { messages: Record<string, { examples: { payload: unknown }[] }> };
  operations: Record<string, { action: string }>;
}

describe('WS AsyncAPI document', () => {
  let server: HttpTestServer;
  let doc: AsyncApiDoc;

  before(async () => {
    server = await startHttpTestServer();
    const r = await new Client(server.url).request<AsyncApiDoc>('GET', '/api-doc/asyncapi.json');
    expect(r.status).to.equal(200);
    doc = r.body;
  });
  after(() => server.close());

  it('is a valid AsyncAPI 3 document (@asyncapi/parser reports no error)', async () => {
    expect(doc.asyncapi).to.equal('3.0.0');
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    const errors = diagnostics.filter((d) => d.severity === 0);
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).to.deep.equal([]);
    expect(document).to.not.equal(undefined);
    expect(document?.messages().length).to.equal(Object.keys(CLIENT_MESSAGE_SCHEMAS).length + Object.keys(SERVER_MESSAGES).length);
  });

  it('names the server by the Host the client used', () => {
    expect(doc.servers.exchange.host).to.equal(new URL(server.url).host);
    expect(doc.servers.exchange.pathname).to.equal('/ws');
  });

  it('has every client op (received) and every server frame (sent), each with examples', () => {
    for (const op of Object.keys(CLIENT_MESSAGE_SCHEMAS)) {
      expect(doc.operations[`receive_${op}`]?.action, op).to.equal('receive');
      expect(doc.components.messages[op]?.examples.length, op).to.be.greaterThan(0);
    }
    for (const name of Object.keys(SERVER_MESSAGES)) {
      expect(doc.operations[`send_${name}`]?.action, name).to.equal('send');
      expect(doc.components.messages[name]?.examples.length, name).to.be.greaterThan(0);
    }
  });

  it('every client example is a frame the server parses', () => {
    for (const op of Object.keys(CLIENT_MESSAGE_SCHEMAS)) {
      for (const { payload } of doc.components.messages[op]?.examples ?? []) {
        const parsed = parseClientMessage(JSON.stringify(payload));
        expect(parsed.ok, `${op}: ${JSON.stringify(parsed)}`).to.equal(true);
      }
    }
  });

  it('every server example matches its zod schema', () => {
    for (const [name, m] of Object.entries(SERVER_MESSAGES)) {
      for (const example of m.examples) {
        const r = m.schema.safeParse(example);
        expect(r.success, `${name}: ${JSON.stringify(r.error?.issues)}`).to.equal(true);
      }
    }
  });

  it('/docs links the AsyncAPI document', async () => {
    const r = await new Client(server.url).request<string>('GET', '/docs');
    expect(r.body).to.include('href="/api-doc/asyncapi.json"');
  });
});
