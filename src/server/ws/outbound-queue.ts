// One connection's outbound path, bounded in messages and bytes. Frames wait in our own FIFO and are
// handed to the socket in batches (one write of whole frames per flush, frame-writer.ts) while the
// socket is not backed up; a frame handed over stays counted until its write callback says the kernel
// took it. So `depth` counts every message this connection still holds anywhere in the process, which
// is what the WS_BROADCAST_BUFFER budget limits, and a client that stops reading can never grow our
// memory.
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { FlushScheduler } from './flush-scheduler.ts';
import { FrameWriter } from './frame-writer.ts';
import { WireFrame } from './wire-frame.ts';

export interface OutboundLimits {
  /** Depth at which broadcast frames are refused (the subscription lags). */
  readonly broadcastBuffer: number;
  /** Depth at which any frame is refused (the peer has stalled). */
  readonly hardCap: number;
  readonly maxQueuedBytes: number;
  readonly socketHighWaterBytes: number;
}

/** Flushes run one at a time on one thread: one writer serves every queue. */
const out = new FrameWriter();
const BATCH_OPEN = Buffer.from('{"type":"batch","messages":[');
const BATCH_COMMA = Buffer.from(',');
const BATCH_CLOSE = Buffer.from(']}');

/** A broadcast frame of a `"batch": true` subscription: consecutive ones leave as one `batch` frame. */
class Batchable {
  readonly frame: Buffer;
  constructor(frame: Buffer) {
    this.frame = frame;
  }
  get length(): number {
    return this.frame.length;
  }
}

type Item = string | Buffer | Batchable | WireFrame;

export class OutboundQueue {
  // A FIFO in one array that is never shortened by setting its length (a runtime call each time, which
  // profiles of the fan-out showed at ~4% of the writing thread with two per flush): items[head, tail)
  // are queued; taken ones are cleared to undefined, and head and tail go back to 0 when all are taken.
  private items: (Item | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private inFlight = 0;
  private queuedBytes = 0;
  private readonly ws: WebSocket;
  private readonly socket: Duplex;
  private readonly limits: OutboundLimits;
  private readonly scheduler: FlushScheduler;
  private drained: (() => void) | null = null;
  private drainedAt = 0;
  // One callback for every write, not a closure per frame.
  private readonly written = (): void => this.writtenMany(1);

  private writtenMany(messages: number): void {
    this.inFlight -= messages;
    if (this.head < this.tail) this.scheduler.schedule(this);
    if (this.drained !== null && this.depth <= this.drainedAt) {
      const resume = this.drained;
      this.drained = null;
      resume();
    }
  }

  constructor(ws: WebSocket, socket: Duplex, limits: OutboundLimits, scheduler: FlushScheduler) {
    this.ws = ws;
    this.socket = socket;
    this.limits = limits;
    this.scheduler = scheduler;
  }

  /** Messages held for this connection: queued here plus handed to the socket and not yet written. */
  get depth(): number {
    return this.inFlight + this.tail - this.head;
  }

  // The socket holds nothing of ours once every write we handed it has called back, so its count
  // (property reads through `ws` and the stream, on every broadcast) is asked only while one has not.
  private bytesHeld(): number {
    return this.inFlight === 0 ? this.queuedBytes : this.queuedBytes + this.ws.bufferedAmount;
  }

  /** A broadcast frame (an l3 delta); false when the budget is used up and the frame was not queued. */
  offerBroadcast(frame: Buffer | WireFrame, batch = false): boolean {
    if (this.depth >= this.limits.broadcastBuffer || this.bytesHeld() + frame.length > this.limits.maxQueuedBytes) return false;
    this.enqueue(batch ? new Batchable(frame instanceof WireFrame ? frame.payload : frame) : frame, frame.length);
    return true;
  }

  /** Any other frame; false when the peer holds so much unread that it has stalled (nothing queued). */
  push(frame: string | Buffer): boolean {
    if (this.depth >= this.limits.hardCap) return false;
    // One frame always fits when nothing is held, so a large snapshot still reaches an idle client.
    if (this.depth > 0 && this.bytesHeld() + frame.length > this.limits.maxQueuedBytes) return false;
    this.enqueue(frame, frame.length);
    return true;
  }

  private enqueue(frame: Item, bytes: number): void {
    this.items[this.tail++] = frame;
    this.queuedBytes += bytes;
    this.scheduler.schedule(this);
  }

  flush(): number {
    if (this.ws.readyState !== WebSocket.OPEN) {
      this.clear();
      return 0;
    }
    if (this.head === this.tail) return 0;
    const from = this.head;
    // What the socket may still take before it counts as backed up: its own backlog (asked once), then
    // what this flush hands it.
    let room = this.limits.socketHighWaterBytes - (this.inFlight === 0 ? 0 : this.ws.bufferedAmount);
    if (room <= 0) return 0;
    // One shared delta and nothing else (a fan-out's usual flush: one delta per subscriber per turn) goes
    // out as its own bytes, as takeRun would send it, without the writer.
    const only = this.items[this.head];
    if (this.tail - this.head === 1 && only instanceof WireFrame) {
      this.items[this.head] = undefined;
      this.emptied();
      this.queuedBytes -= only.length;
      this.inFlight++;
      this.socket.write(only.wire, this.written);
      return 1;
    }
    // The writer is shared by every queue: whatever an earlier flush left in it (it threw between
    // adding and taking) must not go out on this connection.
    out.clear();
    while (this.head < this.tail && room > 0) {
      const frame = this.items[this.head] as Item;
      const held = this.queuedBytes;
      if (frame instanceof Batchable) this.takeBatch(out);
      else if (frame instanceof WireFrame && frame.run !== null) this.takeRun(frame, out);
      else {
        this.items[this.head] = undefined;
        this.head++;
        this.queuedBytes -= frame.length;
        out.add(frame instanceof WireFrame ? frame.wire : frame, frame instanceof WireFrame);
      }
      room -= held - this.queuedBytes;
    }
    // Everything this flush hands over leaves as one write of whole frames: one pass through the
    // stream and one system call, however many frames (an order's ack and its private events, a
    // turn's deltas). `ws` would frame each message on its own, two stream writes apiece.
    // Each item taken is one message (a batch or a run counts each of its deltas). A socket still
    // backed up takes nothing this time: its write callback schedules the next flush.
    const sent = this.head - from;
    if (sent === 0) return 0;
    this.inFlight += sent;
    this.socket.write(out.take(), sent === 1 ? this.written : () => this.writtenMany(sent));
    if (this.head === this.tail) this.emptied();
    else if (this.head > 1024 && this.head * 2 > this.tail) {
      this.items.copyWithin(0, this.head, this.tail);
      this.items.fill(undefined, this.tail - this.head, this.tail);
      this.tail -= this.head;
      this.head = 0;
    }
    return sent;
  }

  /** Everything queued was taken: the FIFO starts again at the array's start. */
  private emptied(): void {
    this.head = 0;
    this.tail = 0;
    // A queue that once held many frames (a slow reader's backlog) gives that room back.
    if (this.items.length > 4096) this.items = [];
  }

  // The run of batchable frames at the head, as one frame: the deltas' own encoded bytes joined, so no
  // delta is serialized again. A run stops at the first other frame (an ack keeps its place) and at
  // the socket's high-water mark in bytes.
  private takeBatch(out: FrameWriter): void {
    const parts: Buffer[] = [BATCH_OPEN];
    let messages = 0;
    let bytes = 0;
    while (this.head < this.tail) {
      const item = this.items[this.head];
      if (!(item instanceof Batchable) || (messages > 0 && bytes + item.length > this.limits.socketHighWaterBytes)) break;
      if (messages > 0) parts.push(BATCH_COMMA);
      parts.push(item.frame);
      this.items[this.head] = undefined;
      this.head++;
      this.queuedBytes -= item.length;
      bytes += item.length;
      messages++;
    }
    parts.push(BATCH_CLOSE);
    out.add(Buffer.concat(parts), false);
  }

  // The deltas of this turn's run of one market that sit one after another at the head, from `first`
  // on: the run's shared bytes when they are all of it (delta-run.ts). Cut at the socket's high-water
  // mark, like a batch.
  private takeRun(first: WireFrame, out: FrameWriter): void {
    const run = first.run as NonNullable<WireFrame['run']>;
    let count = 0;
    let bytes = 0;
    while (this.head < this.tail) {
      const item = this.items[this.head];
      if (!(item instanceof WireFrame) || item.run !== run || item.runIndex !== first.runIndex + count) break;
      if (count > 0 && bytes + item.length > this.limits.socketHighWaterBytes) break;
      this.items[this.head] = undefined;
      this.head++;
      this.queuedBytes -= item.length;
      bytes += item.length;
      count++;
    }
    out.add(count === 1 ? first.wire : run.wire(first.runIndex, count), true);
  }

  /** Calls `resume` once, when no more than `depth` messages are held (the writes have caught up). */
  whenDrainedTo(depth: number, resume: () => void): void {
    if (this.depth <= depth) {
      resume();
      return;
    }
    this.drainedAt = depth;
    this.drained = resume;
  }

  /** Drops everything not yet handed to the socket (the connection is closing). */
  clear(): void {
    this.drained = null;
    this.items = [];
    this.head = 0;
    this.tail = 0;
    this.queuedBytes = 0;
  }
}
