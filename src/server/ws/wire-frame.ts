// A broadcast frame encoded once down to the bytes on the wire. Server-to-client WebSocket frames are
// not masked (RFC 6455 5.1), so a text frame's header and payload are the same for every receiver:
// built once, the whole frame goes to each subscriber's socket as one write, instead of `ws` framing the
// same payload again per connection. Only for frames without permessage-deflate (the gateway turns it
// off) and written between whole frames (`ws` writes each of its own frames synchronously then).

/**
 * The turn's run of l3 deltas a frame belongs to (delta-run.ts builds it): the wire bytes of `count` of
 * its frames from `from` on, joined once and shared. An interface here, so that this file and the run
 * do not import each other.
 */
export interface FrameRun {
  wire(from: number, count: number): Buffer;
}

export class WireFrame {
  /** The JSON text, for a `batch` frame that joins several payloads. */
  readonly payload: Buffer;
  /** An l3 delta of this turn's run of its market (delta-run.ts), and its place in it; null otherwise. */
  run: FrameRun | null = null;
  runIndex = 0;
  private framed: Buffer | null = null;

  constructor(payload: Buffer) {
    this.payload = payload;
  }

  get length(): number {
    return this.payload.length;
  }

  /** Header and payload, built on first use. */
  get wire(): Buffer {
    this.framed ??= Buffer.concat([textFrameHeader(this.payload.length), this.payload]);
    return this.framed;
  }
}

/** FIN + opcode 1 (text), no mask, then the payload length in 7, 7+16 or 7+64 bits. */
export function textFrameHeader(length: number): Buffer {
  const header = Buffer.allocUnsafe(textHeaderLength(length));
  writeTextHeader(header, 0, length);
  return header;
}

/** The bytes of a text frame's header for a payload of `length` bytes. */
export function textHeaderLength(length: number): number {
  return length < 126 ? 2 : length < 65536 ? 4 : 10;
}

/** Writes a text frame's header for a payload of `length` bytes at `at`; returns where the payload starts. */
export function writeTextHeader(buffer: Buffer, at: number, length: number): number {
  buffer[at] = 0x81;
  if (length < 126) {
    buffer[at + 1] = length;
    return at + 2;
  }
  if (length < 65536) {
    buffer[at + 1] = 126;
    buffer.writeUInt16BE(length, at + 2);
    return at + 4;
  }
  buffer[at + 1] = 127;
  buffer.writeBigUInt64BE(BigInt(length), at + 2);
  return at + 10;
}
