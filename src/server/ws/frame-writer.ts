// Joins the frames one flush hands a socket into one Buffer of whole WebSocket frames, so they leave in
// one stream write (one system call) instead of two writes apiece through `ws`. Parts are either a
// payload (JSON text as a string or its bytes), framed here as an unmasked text frame exactly as `ws`
// frames it (wire-frame.ts), or bytes already framed (a shared delta, a run of them). Only for sockets
// without permessage-deflate (the gateway turns it off); see wire-frame.ts for why writing around `ws`
// keeps its frames whole.
import { textHeaderLength, writeTextHeader } from './wire-frame.ts';

export class FrameWriter {
  // Parts [0, count) of the arrays, which keep their length: shortening an array by setting its length
  // is a runtime call, two per flush, ~4% of the writing thread in a fan-out profile.
  private readonly parts: (string | Buffer | undefined)[] = [];
  /** Per part: its byte length, or its bitwise complement (negative, -1 for 0 bytes) when the part is already framed. */
  private readonly lengths: number[] = [];
  private count = 0;
  private total = 0;

  add(part: string | Buffer, framed: boolean): void {
    const bytes = typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length;
    this.parts[this.count] = part;
    this.lengths[this.count] = framed ? ~bytes : bytes;
    this.count++;
    this.total += framed ? bytes : textHeaderLength(bytes) + bytes;
  }

  /** The frames added since the last take, as one Buffer; the writer is empty again. */
  take(): Buffer {
    const parts = this.parts;
    const lengths = this.lengths;
    // One frame that is framed already (a lone shared delta) goes as it is, shared, not copied.
    let out: Buffer;
    if (this.count === 1 && (lengths[0] as number) < 0) out = parts[0] as Buffer;
    else {
      out = Buffer.allocUnsafe(this.total);
      let at = 0;
      for (let i = 0; i < this.count; i++) {
        const part = parts[i] as string | Buffer;
        let bytes = lengths[i] as number;
        if (bytes < 0) bytes = ~bytes;
        else at = writeTextHeader(out, at, bytes);
        if (typeof part === 'string') out.write(part, at, bytes, 'utf8');
        else part.copy(out, at);
        at += bytes;
      }
    }
    this.clear();
    return out;
  }

  /** Drops whatever was added and not taken (and lets go of the parts). */
  clear(): void {
    for (let i = 0; i < this.count; i++) this.parts[i] = undefined;
    this.count = 0;
    this.total = 0;
  }
}
