// Reading old events as current ones. A log is never rewritten: its stored text (which the hash chain
// covers) stays as it was written, and an event of an older schema version is turned into the current
// shape only in memory, just before it is applied. Every consumer of the state's event stream (the
// projections, the feeds, the service) therefore sees one vocabulary, whatever version a log holds.
import { SCHEMA_VERSION, type ExchangeEvent, type SchemaVersion } from '../types.ts';
import type { V1Event } from './v1.ts';

/** An event as a log may hold it: of the current version or of an older one. */
export type RecordedEvent = ExchangeEvent | V1Event;

/** The schema version an event was written with. */
export function schemaOf(event: { readonly v?: number | undefined }): SchemaVersion {
  return event.v === SCHEMA_VERSION ? SCHEMA_VERSION : event.v === 2 ? 2 : 1;
}

/**
 * The event in the current vocabulary. `v` is kept as recorded (absent for version 1), so the state can
 * tell which schema a log was written with; only the data is brought up to date. Version 3 only added to
 * version 2 (optional members whose absence means what version 2 did, and new event types), so a
 * version-2 event is a version-3 event as it stands.
 */
export function upcast(event: RecordedEvent): ExchangeEvent {
  if (event.v !== undefined) return event;
  return upcastV1(event as V1Event);
}

function upcastV1(event: V1Event): ExchangeEvent {
  if (event.type !== 'OrderSubmitted') return event;
  // Version 1 knew only GTC limit orders, without self-trade prevention or client order ids: what did
  // not fill rested, so the order is open when something rests and filled otherwise.
  const { order, fills, remaining } = event.data;
  return {
    seq: event.seq,
    time: event.time,
    type: 'OrderSubmitted',
    data: {
      order: { ...order, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null },
      fills,
      self_trade_canceled: [],
      remaining,
      status: remaining > 0 ? 'open' : 'filled',
    },
  };
}
