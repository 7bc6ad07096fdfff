// Client-to-server frames, parsed with zod. Order fields reuse the REST request schemas, so a value that
// parses over one transport parses over the other, and value rules (ranges, ticks) are left to decide,
// which applies them in the specification's order. A frame that fails here is a protocol error
// (`invalid_message` or `unsupported_channel`), never a reject.
import { z } from 'zod';
import type { ErrorCode } from '../../commands/errors.ts';
import { AmendOrderBody, ClientOrderId, requirePriceOfLimitOrder, SubmitOrderFields } from '../../commands/schemas.ts';
import { fastSubmitOrderBody } from '../../commands/fast-order-bodies.ts';
import { CHANNELS, MAX_L2_DEPTH, UNSUPPORTED_CHANNEL_MESSAGE } from './channels.ts';

export { CHANNELS, type Channel } from './channels.ts';

const RequestId = z.string().max(256).optional();
const Market = z.string().max(128);

const Authenticate = z.object({
  op: z.literal('authenticate'),
  api_key: z.string().max(256),
  // Extension (trading-extensions.md): cancel the trader's open orders when its last such connection closes.
  cancel_on_disconnect: z.boolean().optional(),
});
// One subscribe schema per channel (channels.ts lists them), told apart by `channel`.
const SubscribeL3 = z.object({
  op: z.literal('subscribe'),
  channel: z.literal('l3'),
  market: Market,
  // Extensions: resume after this sequence from the ring of recent deltas, when the epoch still matches.
  last_sequence: z.number().int().nonnegative().optional(),
  epoch: z.string().max(128).optional(),
  // Extension: deltas due within one turn of the event loop come as one `batch` frame.
  batch: z.boolean().optional(),
});
const SubscribeTrades = z.object({ op: z.literal('subscribe'), channel: z.literal('trades'), market: Market });
const SubscribeL2 = z.object({
  op: z.literal('subscribe'),
  channel: z.literal('l2'),
  market: Market,
  // The best N levels of each side; absent: every level.
  depth: z.number().int().min(1).max(MAX_L2_DEPTH).optional(),
});
const SubscribeTicker = z.object({ op: z.literal('subscribe'), channel: z.literal('ticker'), market: Market });
const SubscribeStandings = z.object({ op: z.literal('subscribe'), channel: z.literal('standings'), market: z.null().optional() });
const Subscribe = z.discriminatedUnion('channel', [SubscribeL3, SubscribeTrades, SubscribeL2, SubscribeTicker, SubscribeStandings]);
const unsubscribeFrom = <C extends 'l3' | 'trades' | 'l2' | 'ticker'>(channel: C) => z.object({ op: z.literal('unsubscribe'), channel: z.literal(channel), market: Market });
const Unsubscribe = z.discriminatedUnion('channel', [
  unsubscribeFrom('l3'),
  unsubscribeFrom('trades'),
  unsubscribeFrom('l2'),
  unsubscribeFrom('ticker'),
  z.object({ op: z.literal('unsubscribe'), channel: z.literal('standings'), market: z.null().optional() }),
]);
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

// The base specification's text ("only the l3 channel is supported") stopped being true when the
// extensions added channels; the message names those there are (the code stays the same).
const UNSUPPORTED_CHANNEL = UNSUPPORTED_CHANNEL_MESSAGE;

function isOp(value: unknown): value is ClientOp {
  return typeof value === 'string' && Object.hasOwn(CLIENT_MESSAGE_SCHEMAS, value);
}

/**
 * A value the client sent, as JSON, cut to its first 64 characters: enough to recognize it, while an op
 * of a whole frame's size (up to WS_MAX_FRAME_BYTES) is not reflected back whole.
 */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  if (text.length <= 64) return text;
  // Not between the two halves of a surrogate pair.
  const cut = (text.charCodeAt(63) & 0xfc00) === 0xd800 ? 63 : 64;
  return `${text.slice(0, cut)}…`;
}

function failure(code: ErrorCode, error: string, requestId?: unknown): ParseResult {
  return typeof requestId === 'string' ? { ok: false, code, error, requestId } : { ok: false, code, error };
}

/** Parses one text frame. `fast: false` leaves out the hand-written submit_order check (for the test that holds it to zod). */
export function parseClientMessage(text: string, fast = true): ParseResult {
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
  if (!isOp(op)) return failure('invalid_message', `unknown op ${shown(op)}; expected one of ${OPS.join(', ')}`, requestId);
  // The channel is judged before the rest, so `{"op":"subscribe","channel":"l1"}` says what is wrong.
  if ((op === 'subscribe' || op === 'unsubscribe') && typeof frame['channel'] === 'string' && !(CHANNELS as readonly string[]).includes(frame['channel'])) {
    return failure('unsupported_channel', UNSUPPORTED_CHANNEL);
  }
  if (fast && op === 'submit_order') {
    const vouched = fastSubmitOrder(frame);
    if (vouched !== undefined) return { ok: true, message: vouched };
  }
  const parsed = CLIENT_MESSAGE_SCHEMAS[op].safeParse(frame);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    return failure('invalid_message', `${op}: ${where}${issue?.message ?? 'invalid message'}`, requestId);
  }
  return { ok: true, message: parsed.data as ClientMessage };
}

/**
 * A submit_order frame as its zod schema parses it (same values, same keys in the same order), checked
 * by hand as the HTTP order path checks its bodies (fast-order-bodies.ts): the zod parse cost as much as
 * the rest of the frame's handling. Undefined for any frame it does not vouch for; that frame goes to
 * zod, which accepts it or names the problem. test/ws/fast-client-messages.spec.ts holds it to the schema.
 */
export function fastSubmitOrder(frame: Record<string, unknown>): ClientMessageOf<'submit_order'> | undefined {
  if (frame['op'] !== 'submit_order') return undefined;
  const requestId = frame['request_id'];
  if (requestId !== undefined && (typeof requestId !== 'string' || (requestId.length > 256 && codePoints(requestId) > 256))) return undefined;
  const body = fastSubmitOrderBody(frame);
  if (body === undefined) return undefined;
  return requestId === undefined ? { ...body, op: 'submit_order' } : { ...body, op: 'submit_order', request_id: requestId };
}

/** Code points of a string, as zod measures string lengths: a surrogate pair counts once, a lone surrogate once. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}
