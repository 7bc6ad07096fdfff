// The ids and times the exchange makes and sends to clients are flat strings, not ropes. Node's
// randomUUID and string concatenation make ropes (ConsStrings), and JSON.stringify of any object holding
// one leaves V8's fast path, costing two to three times as much: in every ack, order state, fill and
// delta (src/server/clock.ts flatUuid, src/events/time-code.ts timeText, src/commands/fill-ids.ts), and
// a frame that is a rope is walked twice more on its way to the socket (ws/frames.ts withRateLimitRemaining).
// Sequential, not only flat: a rope flattened in place (String.prototype.trim does that) is flat but
// still a ConsString, which the fast path refuses too (ad47d61 built times and fill ids so, and measured
// the WebSocket order entry worse). V8 tells either only to code run with --allow-natives-syntax, so the
// probe runs in a child.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';

describe('server: the strings sent to clients are flat', function () {
  this.timeout(30_000);

  it('stamp ids and times, time texts, fill ids, the ids and times of order and fill views, an ack with its budget', () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', new URL('../support/flat-strings-probe.ts', import.meta.url).pathname], { encoding: 'utf8' });
    const flat = JSON.parse(out) as Record<string, boolean>;
    expect(Object.keys(flat)).to.have.length(9);
    for (const [name, isFlat] of Object.entries(flat)) expect(isFlat, name).to.equal(true);
  });
});
