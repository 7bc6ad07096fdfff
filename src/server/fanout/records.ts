// The records of the data channel (line-channel.ts), one per line: a one-letter tag, then its fields.
// JSON payloads are embedded as they are (an event's JSON, a frame's text), so nothing is escaped twice
// and a frame main built goes to the client's socket without being parsed or encoded again.
//
// main -> child, in the order main published them:
//   s<json>            the start: the configuration and the epoch (first record)
//   p<json>            a line of the state's snapshot (src/projections/snapshot.ts: its head, then its
//                      parts), after the start: a snapshot goes a part at a time, never as one string
//   q                  the snapshot's end: the child restores it and takes connections
//   e<json>            one published event, to fold
//   k<ms>              main's clock (ms since the epoch) when it wrote the events that follow (one per write)
//   a<conn> <frame>    the answer to a trading op of connection <conn>: its ack or reject frame
//   b<conn> <ms>       a trading op the trader's budget refused (retry after <ms>)
//   n<conn>            a trading op that ended without a frame (an error main logged)
//   y<token>           the answer to sync request <token>: every event published before it was sent
//   m<token>           asks for the WebSocket figures and series
// child -> main:
//   t<conn> <key hash> <json>  a trading op of connection <conn>, authenticated with that key
//   y<token>           a sync request (read-your-writes before authenticate and subscribe)
//   f<trader> / u<trader>      the trader gained its first / lost its last cancel_on_disconnect connection
//   c<trader>          that last connection closed: cancel the trader's open orders
//   l<key id>          the key was used (an authenticate, a trading op), a second or more after its last
//                      use told (src/server/keys/key-usage.ts)
//   m<token> <json>    the WebSocket figures and series (ws-report.ts)

export const Tag = {
  Start: 's',
  SnapshotLine: 'p',
  SnapshotEnd: 'q',
  Event: 'e',
  Clock: 'k',
  Answer: 'a',
  OverBudget: 'b',
  NoAnswer: 'n',
  Sync: 'y',
  Metrics: 'm',
  Trade: 't',
  Flagged: 'f',
  Unflagged: 'u',
  Disconnected: 'c',
  KeyUsed: 'l',
} as const;

/** A record `<tag><number> <rest>` (or `<tag><number>`), split; null when it does not have that shape. */
export function numbered(line: string): { readonly n: number; readonly rest: string } | null {
  const space = line.indexOf(' ');
  const n = Number(space < 0 ? line.slice(1) : line.slice(1, space));
  if (!Number.isSafeInteger(n) || n < 0) return null;
  return { n, rest: space < 0 ? '' : line.slice(space + 1) };
}
