// One connection's outbound queue (src/server/ws/outbound-queue.ts) against a socket that records its
// writes: a flush leaves as one write of whole frames in queue order (runs of deltas joined, batchable
// deltas as one batch frame); every message stays counted in `depth` until the write that carried it
// calls back; a backed-up socket is written nothing until it drains; a closing one nothing at all; and
// a run cut at the socket's high-water mark goes on from where it was cut.
import { expect } from 'chai';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { DeltaRun } from '../../src/server/ws/delta-run.ts';
import type { FlushScheduler } from '../../src/server/ws/flush-scheduler.ts';
import { OutboundQueue } from '../../src/server/ws/outbound-queue.ts';
import { WireFrame } from '../../src/server/ws/wire-frame.ts';

/** The text frames of a buffer of whole unmasked WebSocket frames (throws on anything else). */
function framesOf(buffer: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < buffer.length) {
    expect(buffer[at], `opcode at ${at}`).to.equal(0x81);
    let length = (buffer[at + 1] as number) & 0x7f;
    let payload = at + 2;
    if (length === 126) {
      length = buffer.readUInt16BE(payload);
      payload += 2;
    } else if (length === 127) {
      length = Number(buffer.readBigUInt64BE(payload));
      payload += 8;
    }
    out.push(buffer.toString('utf8', payload, payload + length));
    at = payload + length;
  }
  expect(at).to.equal(buffer.length);
  return out;
}

interface Harness {
  readonly queue: OutboundQueue;
  readonly ws: { readyState: number; bufferedAmount: number };
  readonly writes: { buffer: Buffer; done: () => void }[];
  /** Times the queue asked to be flushed. */
  readonly scheduled: number;
  /** Calls back every write so far (the kernel took them). */
  drain(): void;
}

function harness(highWater = 256 * 1024): Harness {
  const ws = { readyState: 1, bufferedAmount: 0 };
  const writes: { buffer: Buffer; done: () => void }[] = [];
  let scheduled = 0;
  const socket = {
    write(buffer: Buffer, done: () => void): boolean {
      writes.push({ buffer, done });
      ws.bufferedAmount += buffer.length;
      return true;
    },
  };
  const scheduler = { schedule: () => scheduled++, atTurnEnd: () => {} } as unknown as FlushScheduler;
  const queue = new OutboundQueue(ws as unknown as WebSocket, socket as unknown as Duplex, { broadcastBuffer: 1000, hardCap: 2000, maxQueuedBytes: 1 << 24, socketHighWaterBytes: highWater }, scheduler);
  return {
    queue,
    ws,
    writes,
    get scheduled() {
      return scheduled;
    },
    drain() {
      const pending = writes.splice(0);
      ws.bufferedAmount = 0;
      for (const w of pending) w.done();
    },
  };
}

const delta = (text: string): WireFrame => new WireFrame(Buffer.from(text));

describe('ws: the outbound queue', () => {
  it('sends one flush as one write of whole frames in queue order, and counts every message until that write calls back', () => {
    const h = harness();
    const run = new DeltaRun();
    const d = ['{"d":0}', '{"d":1}', '{"d":2}'].map((t) => {
      const f = delta(t);
      run.add(f);
      return f;
    });
    h.queue.push('{"type":"ack"}');
    h.queue.offerBroadcast(d[0] as WireFrame);
    h.queue.offerBroadcast(d[1] as WireFrame);
    h.queue.push(Buffer.from('{"admin":1}'));
    h.queue.offerBroadcast(d[2] as WireFrame);
    h.queue.offerBroadcast(delta('{"b":1}'), true);
    h.queue.offerBroadcast(delta('{"b":2}'), true);
    h.queue.push('{"é":"😀"}');
    expect(h.queue.depth).to.equal(8);
    expect(h.queue.flush()).to.equal(8);
    expect(h.writes).to.have.length(1);
    expect(framesOf((h.writes[0] as { buffer: Buffer }).buffer)).to.deep.equal(['{"type":"ack"}', '{"d":0}', '{"d":1}', '{"admin":1}', '{"d":2}', '{"type":"batch","messages":[{"b":1},{"b":2}]}', '{"é":"😀"}']);
    // Handed to the socket, not yet written: still held.
    expect(h.queue.depth).to.equal(8);
    h.drain();
    expect(h.queue.depth).to.equal(0);
    // Nothing left: a flush writes nothing.
    expect(h.queue.flush()).to.equal(0);
    expect(h.writes).to.have.length(0);
  });

  it('writes nothing to a socket still backed up, and goes on once its writes call back', () => {
    const h = harness(1000);
    h.queue.push(`"${'x'.repeat(2000)}"`);
    h.queue.flush();
    expect(h.writes).to.have.length(1);
    h.queue.push('{"later":1}');
    const before = h.scheduled;
    for (let i = 0; i < 3; i++) expect(h.queue.flush()).to.equal(0);
    expect(h.writes, 'no write while backed up').to.have.length(1);
    expect(h.queue.depth).to.equal(2);
    h.drain();
    expect(h.scheduled, 'the write callback schedules the next flush').to.be.greaterThan(before);
    expect(h.queue.flush()).to.equal(1);
    expect(framesOf((h.writes[0] as { buffer: Buffer }).buffer)).to.deep.equal(['{"later":1}']);
  });

  it('writes nothing once the connection is closing, and drops what it held', () => {
    const h = harness();
    h.queue.push('{"a":1}');
    h.queue.offerBroadcast(delta('{"d":1}'));
    h.ws.readyState = 2; // CLOSING
    expect(h.queue.flush()).to.equal(0);
    expect(h.writes).to.have.length(0);
    expect(h.queue.depth).to.equal(0);
  });

  it('cuts a run at the high-water mark and sends the rest, in order, on the next flushes', () => {
    const h = harness(40);
    const run = new DeltaRun();
    const texts = Array.from({ length: 7 }, (_, i) => `{"delta":${i},"pad":"${'p'.repeat(8)}"}`);
    for (const t of texts) {
      const f = delta(t);
      run.add(f);
      h.queue.offerBroadcast(f);
    }
    const seen: string[] = [];
    let flushes = 0;
    while (h.queue.depth > 0 && flushes < 20) {
      const sent = h.queue.flush();
      flushes++;
      expect(sent, 'each flush sends something once the socket has drained').to.be.greaterThan(0);
      expect(h.writes).to.have.length(1);
      const frames = framesOf((h.writes[0] as { buffer: Buffer }).buffer);
      expect(frames).to.have.length(sent);
      seen.push(...frames);
      h.drain();
    }
    expect(flushes).to.be.greaterThan(1);
    expect(seen).to.deep.equal(texts);
  });

  it('writes a lone shared delta as its own bytes, the same Buffer for every subscriber, counted until its write calls back', () => {
    const shared = delta('{"d":"shared"}');
    const a = harness();
    const b = harness();
    a.queue.offerBroadcast(shared);
    b.queue.offerBroadcast(shared);
    expect(a.queue.flush()).to.equal(1);
    expect(b.queue.flush()).to.equal(1);
    const wa = (a.writes[0] as { buffer: Buffer }).buffer;
    expect(wa, 'not copied').to.equal(shared.wire);
    expect((b.writes[0] as { buffer: Buffer }).buffer).to.equal(wa);
    expect(framesOf(wa)).to.deep.equal(['{"d":"shared"}']);
    expect(a.queue.depth).to.equal(1);
    a.drain();
    expect(a.queue.depth).to.equal(0);
    // What follows it goes out as usual, in order, from the queue's start again.
    a.queue.push('{"after":1}');
    a.queue.offerBroadcast(delta('{"d":2}'));
    expect(a.queue.flush()).to.equal(2);
    expect(framesOf((a.writes[0] as { buffer: Buffer }).buffer)).to.deep.equal(['{"after":1}', '{"d":2}']);
  });

  it('keeps the order of a long backlog taken a little at a time, however it is compacted', () => {
    // A socket that takes about 100 small frames per flush, and a backlog of 1,900 (the harness's hard
    // cap is 2,000) with more arriving between flushes: past 1,024 taken, the queue moves what is left to
    // its start.
    const h = harness(1200);
    const sent: string[] = [];
    let next = 0;
    const push = (n: number): void => {
      for (let i = 0; i < n; i++) expect(h.queue.push(`{"n":${next++}}`)).to.equal(true);
    };
    push(1900);
    for (let round = 0; round < 400 && h.queue.depth > 0; round++) {
      h.queue.flush();
      for (const w of h.writes) sent.push(...framesOf(w.buffer));
      h.drain();
      if (round % 3 === 0 && next < 6000) push(60);
    }
    expect(h.queue.depth).to.equal(0);
    expect(sent).to.deep.equal(Array.from({ length: next }, (_, i) => `{"n":${i}}`));
  });
});
