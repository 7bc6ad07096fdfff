// Client-to-server frames, parsed with zod. Order fields reuse the REST request schemas, so a value that
// parses over one transport parses over the other, and value rules (ranges, ticks) are left to decide,
// which applies them in the specification's order. A frame that fails here is a protocol error
// (`invalid_message` or `unsupported_channel`), never a reject.
import { z } from 'zod';
import { ERRORS, type ErrorCode } from '../../commands/errors.ts';
import { AmendOrderBody, ClientOrderId, requirePriceOfLimitOrder, SubmitOrderFields } from '../../commands/schemas.ts';

/** The channels a client may subscribe to. */
export const CHANNELS = ['l3', 'trades'] as const;
export type Channel = (typeof CHANNELS)[number];
const ChannelName = z.enum(CHANNELS);

const RequestId = z.string().max(256).optional();
const Market = z.string().max(128);

const Authenticate = z.object({
  op: z.literal('authenticate'),
  api_key: z.string().max(256),
  // Extension (trading-extensions.md): cancel the trader's open orders when its last such connection closes.
  cancel_on_disconnect: z.boolean().optional(),
});
const Subscribe = z.object({
  op: z.literal('subscribe'),
  channel: ChannelName,
  market: Market,
  // Extensions: resume after this sequence from the ring of recent deltas, when the epoch still matches.
  last_sequence: z.number().int().nonnegative().optional(),
  epoch: z.string().max(128).optional(),
});
const Unsubscribe = z.object({ op: z.literal('unsubscribe'), channel: ChannelName, market: Market });
const Ping = z.object({ op: z.literal('ping'), request_id: RequestId });
const SubmitOrder = SubmitOrderFields.extend({ op: z.literal('submit_order'), request_id: RequestId }).superRefine(requirePriceOfLimitOrder);
// An order is named by order_id or, extension, by the client_order_id its owner gave it: exactly one.
const orderRef = { order_id: z.string().max(128).optional(), client_order_id: ClientOrderId.optional() };
function oneRef(m: { order_id?: string | undefined; client_order_id?: string | undefined }, ctx: z.RefinementCtx): void {
  if ((m.order_id === undefined) === (m.client_order_id === undefined)) ctx.addIssue({ code: 'custom', path: ['order_id'], message: 'give exactly one of order_id and client_order_id' });
}
const CancelOrder = z.object({ op: z.literal('cancel_order'), request_id: RequestId, ...orderRef }).superRefine(oneRef);
const AmendOrder = AmendOrderBody.extend({ op: z.literal('amend_order'), request_id: RequestId, ...orderRef }).superRefine(oneRef);
const CancelAll = z.object({ op: z.literal('cancel_all'), request_id: RequestId, market: Market.nullable().optional() });

export const CLIENT_MESSAGE_SCHEMAS = {
  authenticate: Authenticate,
  subscribe: Subscribe,
  unsubscribe: Unsubscribe,
  ping: Ping,
  submit_order: SubmitOrder,
  cancel_order: CancelOrder,
  amend_order: AmendOrder,
  cancel_all: CancelAll,
} as const;

export type ClientOp = keyof typeof CLIENT_MESSAGE_SCHEMAS;
export type ClientMessage = { [K in ClientOp]: z.infer<(typeof CLIENT_MESSAGE_SCHEMAS)[K]> }[ClientOp];
export type ClientMessageOf<K extends ClientOp> = z.infer<(typeof CLIENT_MESSAGE_SCHEMAS)[K]>;

export type ParseResult =
  | { readonly ok: true; readonly message: ClientMessage }
  | { readonly ok: false; readonly code: ErrorCode; readonly error: string; readonly requestId?: string };

const OPS = Object.keys(CLIENT_MESSAGE_SCHEMAS) as ClientOp[];

// The specification fixes this text word for word (existing bots may match it), though the extensions
// added channels since: docs/websocket.md lists them.
const UNSUPPORTED_CHANNEL = ERRORS.unsupported_channel.message;

function isOp(value: unknown): value is ClientOp {
  return typeof value === 'string' && Object.hasOwn(CLIENT_MESSAGE_SCHEMAS, value);
}

function failure(code: ErrorCode, error: string, requestId?: unknown): ParseResult {
  return typeof requestId === 'string' ? { ok: false, code, error, requestId } : { ok: false, code, error };
}

/** Parses one text frame. */
export function parseClientMessage(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return failure('invalid_message', 'malformed JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return failure('invalid_message', 'expected a JSON object with an "op" field');
  const frame = raw as Record<string, unknown>;
  const op = frame['op'];
  const requestId = frame['request_id'];
  if (op === undefined) return failure('invalid_message', 'missing "op"', requestId);
  if (!isOp(op)) return failure('invalid_message', `unknown op ${JSON.stringify(op)}; expected one of ${OPS.join(', ')}`, requestId);
  // The channel is judged before the rest, so `{"op":"subscribe","channel":"l2"}` says what is wrong.
  if ((op === 'subscribe' || op === 'unsubscribe') && typeof frame['channel'] === 'string' && !(CHANNELS as readonly string[]).includes(frame['channel'])) {
    return failure('unsupported_channel', UNSUPPORTED_CHANNEL);
  }
  const parsed = CLIENT_MESSAGE_SCHEMAS[op].safeParse(frame);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    return failure('invalid_message', `${op}: ${where}${issue?.message ?? 'invalid message'}`, requestId);
  }
  return { ok: true, message: parsed.data as ClientMessage };
}
