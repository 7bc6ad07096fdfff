// A broadcast frame framed once: the header is RFC 6455's for an unmasked final text frame, in the
// 7-bit, 16-bit and 64-bit length forms, and a real `ws` client reads such bytes as the text sent.
import { expect } from 'chai';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { FrameWriter } from '../../src/server/ws/frame-writer.ts';
import { textFrameHeader, WireFrame } from '../../src/server/ws/wire-frame.ts';

describe('ws: frames framed once for every subscriber', () => {
  it('writes the three length forms', () => {
    expect([...textFrameHeader(5)]).to.deep.equal([0x81, 5]);
    expect([...textFrameHeader(125)]).to.deep.equal([0x81, 125]);
    expect([...textFrameHeader(126)]).to.deep.equal([0x81, 126, 0, 126]);
    expect([...textFrameHeader(65535)]).to.deep.equal([0x81, 126, 0xff, 0xff]);
    expect([...textFrameHeader(65536)]).to.deep.equal([0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
  });

  it('is read back by a real ws client as the same text, for each length form', async () => {
    const texts = [10, 300, 70_000].map((size) => JSON.stringify({ type: 'update', pad: 'x'.repeat(size) }));
    // The frames go straight to the upgraded socket, as the outbound queue writes them.
    const got = await readBack((socket) => {
      for (const text of texts) socket.write(new WireFrame(Buffer.from(text)).wire);
    }, texts.length);
    expect(got).to.deep.equal(texts);
  });

  it('joins one flush of strings, payload bytes and framed bytes into one write a real ws client reads frame by frame', async () => {
    // Texts of every length form, multi-byte and astral characters, and a lone surrogate (encoded as
    // U+FFFD, as `ws` encodes it), given as strings, as payload bytes, as one framed delta, and as a
    // framed run of two; two flushes, so the writer is seen to start empty again.
    // The é texts cross a length form by their UTF-8 bytes, not by their characters (126 and 65,536).
    const texts = ['{"type":"ack"}', `{"pad":"${'é'.repeat(70)}"}`, `{"pad":"${'x'.repeat(300)}"}`, '{"s":"\ud83d\ude00 😀"}', `{"big":"${'é'.repeat(33_000)}"}`, '{"lone":"\ud800"}', '"\ud800"'];
    // What a client reads of each: the text as UTF-8 encodes it (lone surrogates become U+FFFD).
    const expected = texts.map((t) => Buffer.from(t).toString('utf8'));
    const wire = (text: string): Buffer => new WireFrame(Buffer.from(text)).wire;
    const writer = new FrameWriter();
    const got = await readBack((socket) => {
      writer.add(texts[0] as string, false);
      writer.add(Buffer.from(texts[1] as string), false);
      writer.add(wire(texts[2] as string), true);
      const first = writer.take();
      writer.add(texts[3] as string, false);
      writer.add(Buffer.concat([wire(texts[4] as string), wire(texts[5] as string)]), true);
      writer.add(texts[6] as string, false);
      socket.write(first);
      socket.write(writer.take());
    }, texts.length);
    expect(got).to.deep.equal(expected);
    expect(got[6]).to.equal('"\ufffd"');
    // A lone framed part is handed on as it is, not copied.
    const shared = wire('{"one":1}');
    writer.add(shared, true);
    expect(writer.take()).to.equal(shared);
  });
});

/**
 * What a real `ws` client (UTF-8 validation on) reads as text messages when `write` puts bytes straight
 * on an upgraded server socket, as the outbound queue does; the first `count` messages.
 */
async function readBack(write: (socket: Duplex) => void, count: number): Promise<string[]> {
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  http.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, () => write(socket)));
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const client = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}/`, { perMessageDeflate: false });
  const got: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      client.on('message', (data, isBinary) => {
        got.push(isBinary ? 'binary' : String(data));
        if (got.length === count) resolve();
      });
      client.on('error', reject);
    });
  } finally {
    client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
  return got;
}
