// The AsyncAPI 3 document of the WebSocket protocol, generated from the zod schemas the server itself
// uses: client-messages.ts parses every client frame with them and frames.ts builds every server frame
// typed by server-messages.ts. The document describes the exchange: it receives the client's frames and
// sends its own. Shared records (Order, Fill, Trade, BookOrder, L3Event) are named components.
import { z } from 'zod';
import { FillSchema, OrderSchema, TradeSchema } from '../http/response-schemas.ts';
import { CLIENT_MESSAGE_SCHEMAS, type ClientOp } from './client-messages.ts';
import { BookOrderSchema, L3EventSchema, SERVER_MESSAGES, type MessageDescription } from './server-messages.ts';

const O = '33333333-3333-4333-8333-333333333333';

/** What each client frame does, with examples: the schemas come from client-messages.ts. */
const CLIENT_DESCRIPTIONS: Record<ClientOp, { summary: string; examples: unknown[] }> = {
  authenticate: {
    summary: 'Authenticate the connection as a trader (needed for trading ops and private events)',
    examples: [{ op: 'authenticate', api_key: 'exch_0123456789abcdef0123456789abcdef' }, { op: 'authenticate', api_key: 'exch_0123456789abcdef0123456789abcdef', cancel_on_disconnect: true }],
  },
  subscribe: {
    summary: 'Subscribe to a channel (l3, trades, l2, ticker: of a market; standings: of the exchange); l3 answers with a snapshot, or with `subscribed` and the missed deltas when last_sequence and epoch allow a resume',
    examples: [
      { op: 'subscribe', channel: 'l3', market: 'BTC-USD' },
      { op: 'subscribe', channel: 'l3', market: 'BTC-USD', last_sequence: 40, epoch: 'e1c4d3a0' },
      { op: 'subscribe', channel: 'l3', market: 'BTC-USD', batch: true },
      { op: 'subscribe', channel: 'trades', market: 'BTC-USD' },
      { op: 'subscribe', channel: 'l2', market: 'BTC-USD' },
      { op: 'subscribe', channel: 'l2', market: 'BTC-USD', depth: 10 },
      { op: 'subscribe', channel: 'ticker', market: 'BTC-USD' },
      { op: 'subscribe', channel: 'standings' },
    ],
  },
  unsubscribe: { summary: 'End a subscription', examples: [{ op: 'unsubscribe', channel: 'l3', market: 'BTC-USD' }, { op: 'unsubscribe', channel: 'l2', market: 'BTC-USD' }, { op: 'unsubscribe', channel: 'standings' }] },
  ping: { summary: 'Answered by pong', examples: [{ op: 'ping', request_id: 'p1' }] },
  submit_order: {
    summary: 'Submit an order; answered by an ack (submit_order) or a reject with the same request_id',
    examples: [
      { op: 'submit_order', request_id: 'r1', market: 'BTC-USD', side: 'BUY', price: 100, quantity: 5, client_order_id: 'bot-1' },
      { op: 'submit_order', request_id: 'r2', market: 'BTC-USD', side: 'SELL', type: 'MARKET', quantity: 2 },
    ],
  },
  cancel_order: { summary: 'Cancel one of your orders, by order_id or client_order_id', examples: [{ op: 'cancel_order', request_id: 'r3', order_id: O }, { op: 'cancel_order', request_id: 'r4', client_order_id: 'bot-1' }] },
  amend_order: { summary: 'Reduce the remaining quantity of one of your orders (keeps its time priority)', examples: [{ op: 'amend_order', request_id: 'r5', order_id: O, remaining: 2 }] },
  cancel_all: { summary: 'Cancel all your open orders, or those of one market', examples: [{ op: 'cancel_all', request_id: 'r6' }, { op: 'cancel_all', request_id: 'r7', market: 'BTC-USD' }] },
};

const NAMED: readonly (readonly [string, z.ZodType])[] = [
  ['Order', OrderSchema],
  ['Fill', FillSchema],
  ['Trade', TradeSchema],
  ['BookOrder', BookOrderSchema],
  ['L3Event', L3EventSchema],
];

export const CLIENT_MESSAGES: Record<ClientOp, MessageDescription> = Object.fromEntries(
  (Object.keys(CLIENT_MESSAGE_SCHEMAS) as ClientOp[]).map((op) => [op, { schema: CLIENT_MESSAGE_SCHEMAS[op], ...CLIENT_DESCRIPTIONS[op] }]),
) as unknown as Record<ClientOp, MessageDescription>;

const payloadId = (name: string): string => `${name.replace(/(^|_)(.)/g, (_m, _s: string, c: string) => c.toUpperCase())}${'Message'}`;

type JsonObject = Record<string, unknown>;

function withoutIds(schema: unknown): JsonObject {
  const { $id: _id, $schema: _schema, ...rest } = schema as JsonObject;
  return rest;
}

export interface AsyncApiOptions {
  /** host:port the document names as its server; the served document uses the request's Host. */
  readonly host?: string;
}

export function buildAsyncApiDocument(options: AsyncApiOptions = {}): JsonObject {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of NAMED) registry.add(schema, { id });
  const client = Object.entries(CLIENT_MESSAGES);
  const server = Object.entries(SERVER_MESSAGES) as [string, MessageDescription][];
  for (const [name, m] of [...client, ...server]) registry.add(m.schema, { id: payloadId(name) });
  const converted = z.toJSONSchema(registry, { target: 'draft-7', io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  const schemas: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(converted.schemas)) schemas[id] = withoutIds(schema);

  const messages: Record<string, JsonObject> = {};
  const channelMessages: Record<string, JsonObject> = {};
  const message = (name: string, m: MessageDescription, direction: string): void => {
    messages[name] = {
      name,
      title: name,
      summary: m.summary,
      contentType: 'application/json',
      payload: { $ref: `#/components/schemas/${payloadId(name)}` },
      examples: m.examples.map((payload, i) => ({ name: `${name}_${i + 1}`, summary: `${direction} ${name}`, payload })),
    };
    channelMessages[name] = { $ref: `#/components/messages/${name}` };
  };
  for (const [name, m] of client) message(name, m, 'client sends');
  for (const [name, m] of server) message(name, m, 'server sends');

  const operations: Record<string, JsonObject> = {};
  for (const [name, m] of client) {
    operations[`receive_${name}`] = { action: 'receive', channel: { $ref: '#/channels/exchange' }, summary: m.summary, messages: [{ $ref: `#/channels/exchange/messages/${name}` }] };
  }
  for (const [name, m] of server) {
    operations[`send_${name}`] = { action: 'send', channel: { $ref: '#/channels/exchange' }, summary: m.summary, messages: [{ $ref: `#/channels/exchange/messages/${name}` }] };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Trading Competition Exchange: WebSocket protocol',
      version: '1.0.0',
      description:
        'One WebSocket at /ws carries JSON text frames both ways. Clients send frames with an `op`; the server answers with frames with a `type`. ' +
        'Trading ops carry an optional request_id that the ack or reject repeats. The l3 channel sends a snapshot, then deltas whose sequence ' +
        'grows by exactly one per market; on a gap or resync_required, subscribe again. See docs/websocket.md. ' +
        'This document is generated from the zod schemas the server uses (src/server/ws/).',
    },
    servers: {
      exchange: { host: options.host ?? 'localhost:8080', protocol: 'ws', pathname: '/ws', description: 'The exchange (wss behind a TLS proxy)' },
    },
    defaultContentType: 'application/json',
    channels: {
      exchange: { address: '/ws', title: 'The exchange WebSocket', description: 'Every frame of the protocol, both directions', messages: channelMessages },
    },
    operations,
    components: { schemas, messages },
  };
}
