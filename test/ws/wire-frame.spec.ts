// A broadcast frame framed once: the header is RFC 6455's for an unmasked final text frame, in the
// 7-bit, 16-bit and 64-bit length forms, and a real `ws` client reads such bytes as the text sent.
import { expect } from 'chai';
import { Receiver } from 'ws';
import { textFrameHeader, WireFrame } from '../../src/server/ws/wire-frame.ts';

describe('ws: frames framed once for every subscriber', () => {
  it('writes the three length forms', () => {
    expect([...textFrameHeader(5)]).to.deep.equal([0x81, 5]);
    expect([...textFrameHeader(125)]).to.deep.equal([0x81, 125]);
    expect([...textFrameHeader(126)]).to.deep.equal([0x81, 126, 0, 126]);
    expect([...textFrameHeader(65535)]).to.deep.equal([0x81, 126, 0xff, 0xff]);
    expect([...textFrameHeader(65536)]).to.deep.equal([0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
  });

  it('is read back by the ws library as the same text, for each length form', async () => {
    for (const size of [10, 300, 70_000]) {
      const text = JSON.stringify({ type: 'update', pad: 'x'.repeat(size) });
      const receiver = new Receiver({ isServer: false });
      const got = new Promise<string>((resolve) => receiver.on('message', (data: Buffer, isBinary: boolean) => resolve(isBinary ? 'binary' : String(data))));
      receiver.write(new WireFrame(Buffer.from(text)).wire);
      expect(await got, `${size}`).to.equal(text);
    }
  });
});
