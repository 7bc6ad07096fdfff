// A WebSocket client for benchmarks that must cost less than the server they measure: the upgrade is
// written by hand, server frames are split by their headers and handed over as a byte range of the
// received buffer (no copy, no UTF-8 decoding, no per-message objects), pings are answered. Only what a
// watcher needs: text frames in, small text frames out.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

export interface RawWs {
  send(text: string): void;
  close(): void;
}

/** Called for every text frame: its payload is buffer[start, end). */
export type OnText = (buffer: Buffer, start: number, end: number) => void;

/** A client frame: FIN, the opcode, masked (a client must mask) with a zero mask. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const header = payload.length < 126 ? Buffer.from([0x80 | opcode, 0x80 | payload.length]) : Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, Buffer.alloc(4), payload]);
}

export async function openRawWs(url: string, onText: OnText): Promise<RawWs> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  let buffer: Buffer = Buffer.alloc(0);
  let upgraded = false;
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!buffer.subarray(0, 12).toString().includes('101')) {
          reject(new Error(`upgrade refused: ${buffer.subarray(0, end).toString()}`));
          return;
        }
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        resolve();
      }
      let at = 0;
      while (buffer.length - at >= 2) {
        const opcode = (buffer[at] as number) & 0x0f;
        let length = (buffer[at + 1] as number) & 0x7f;
        let start = at + 2;
        if (length === 126) {
          if (buffer.length - at < 4) break;
          length = buffer.readUInt16BE(at + 2);
          start = at + 4;
        } else if (length === 127) {
          if (buffer.length - at < 10) break;
          length = Number(buffer.readBigUInt64BE(at + 2));
          start = at + 10;
        }
        if (buffer.length < start + length) break;
        if (opcode === 0x9) socket.write(clientFrame(0xa, buffer.subarray(start, start + length)));
        else if (opcode === 0x1) onText(buffer, start, start + length);
        at = start + length;
      }
      buffer = at === buffer.length ? Buffer.alloc(0) : buffer.subarray(at);
    });
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  return { send: (text) => void socket.write(clientFrame(1, Buffer.from(text))), close: () => socket.destroy() };
}
