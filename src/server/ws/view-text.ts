// The JSON text of a view object, kept for the last few objects asked about. One command's frames show
// the same views several times: a fill is in the taker's fill frame, the maker's and the submit ack; an
// order's state frame and its ack show the same order (the order store hands out one view while nothing
// in it changes). Serializing each object once was a third of the frames' JSON.stringify in bench:ws.
//
// Keyed by identity, so a view must not change once built: views are read-only objects made for
// clients. A ring of strong references, not a WeakMap: most views are asked about once, and a WeakMap
// entry per view would cost the collector more than the text it saves.
const SIZE = 16;
// Empty entries hold an object no caller has, so nothing a caller passes can match one.
const EMPTY = {};
const keys: object[] = new Array<object>(SIZE).fill(EMPTY);
const texts: string[] = new Array<string>(SIZE).fill('');
let next = 0;

export function viewText(view: object): string {
  for (let i = 0; i < SIZE; i++) if (keys[i] === view) return texts[i] as string;
  const text = JSON.stringify(view);
  keys[next] = view;
  texts[next] = text;
  next = (next + 1) % SIZE;
  return text;
}
