// Joins the frames one flush hands a socket into one Buffer of whole WebSocket frames, so they leave in
// one stream write (one system call) instead of two writes apiece through `ws`. Parts are either a
// payload (JSON text as a string or its bytes), framed here as an unmasked text frame exactly as `ws`
// frames it (wire-frame.ts), or bytes already framed (a shared delta, a run of them). Only for sockets
// without permessage-deflate (the gateway turns it off); see wire-frame.ts for why writing around `ws`
// keeps its frames whole.
import { textHeaderLength, writeTextHeader } from './wire-frame.ts';

export class FrameWriter {
  private readonly parts: (string | Buffer)[] = [];
  /** Per part: its byte length, or its bitwise complement (negative, -1 for 0 bytes) when the part is already framed. */
  private readonly lengths: number[] = [];
  private total = 0;

  add(part: string | Buffer, framed: boolean): void {
    const bytes = typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length;
    this.parts.push(part);
    this.lengths.push(framed ? ~bytes : bytes);
    this.total += framed ? bytes : textHeaderLength(bytes) + bytes;
  }

  /** The frames added since the last take, as one Buffer; the writer is empty again. */
  take(): Buffer {
    const parts = this.parts;
    const lengths = this.lengths;
    // One frame that is framed already (a lone shared delta) goes as it is, shared, not copied.
    let out: Buffer;
    if (parts.length === 1 && (lengths[0] as number) < 0) out = parts[0] as Buffer;
    else {
      out = Buffer.allocUnsafe(this.total);
      let at = 0;
      for (let i = 0; i < parts.length; i++) {
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

  /** Drops whatever was added and not taken. */
  clear(): void {
    this.parts.length = 0;
    this.lengths.length = 0;
    this.total = 0;
  }
}
