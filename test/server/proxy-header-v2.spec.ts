// The PROXY protocol v2 header parser (src/server/client-address/proxy-header-v2.ts): what HAProxy
// sends is read to the byte, and any input, however malformed or cut, gets an answer without a throw;
// an answer never changes as more bytes arrive, so a reader may act on the first one it gets.
import { expect } from 'chai';
import fc from 'fast-check';
import { SocketAddress } from 'node:net';
import { parseProxyHeaderV2, PROXY_V2_SIGNATURE, type ProxyHeader } from '../../src/server/client-address/proxy-header-v2.ts';
import { proxyHeaderV2, proxyV4 } from '../support/proxy-header.ts';

const bytes = (n: number, fill = 0): Uint8Array => new Uint8Array(n).fill(fill);

describe('PROXY protocol v2 header', () => {
  it('reads the source of TCP over IPv4 and IPv6, with its length, TLVs included', () => {
    expect(parseProxyHeaderV2(proxyV4('203.0.113.7'))).to.deep.equal({ kind: 'complete', length: 28, source: '203.0.113.7' });
    const tlv = Uint8Array.from([0x04, 0x00, 0x03, 0x61, 0x62, 0x63]);
    expect(parseProxyHeaderV2(Buffer.concat([proxyV4('10.1.2.3', tlv), Buffer.from('GET / HTTP/1.1\r\n')]))).to.deep.equal({ kind: 'complete', length: 34, source: '10.1.2.3' });
    const v6 = Uint8Array.from([0x20, 0x01, 0x0d, 0xb8, ...bytes(11), 0x01, ...bytes(16), 0, 1, 0, 2]);
    expect(parseProxyHeaderV2(proxyHeaderV2({ command: 1, family: 2, transport: 1, addresses: v6 }))).to.deep.equal({ kind: 'complete', length: 52, source: '2001:db8::1' });
  });

  it('names no source for LOCAL (whatever its block holds), UNSPEC, UNIX or an unspecified transport', () => {
    expect(parseProxyHeaderV2(proxyHeaderV2({ command: 0, family: 0, transport: 0, addresses: bytes(0) }))).to.deep.equal({ kind: 'complete', length: 16, source: null });
    expect(parseProxyHeaderV2(proxyHeaderV2({ command: 0, family: 9, transport: 9, addresses: bytes(5) }))).to.deep.equal({ kind: 'complete', length: 21, source: null });
    expect(parseProxyHeaderV2(proxyHeaderV2({ command: 1, family: 0, transport: 0, addresses: bytes(0) }))).to.deep.equal({ kind: 'complete', length: 16, source: null });
    expect(parseProxyHeaderV2(proxyHeaderV2({ command: 1, family: 3, transport: 1, addresses: bytes(216) }))).to.deep.equal({ kind: 'complete', length: 232, source: null });
    expect(parseProxyHeaderV2(proxyHeaderV2({ command: 1, family: 1, transport: 0, addresses: bytes(12, 9) }))).to.deep.equal({ kind: 'complete', length: 28, source: null });
  });

  it('refuses what is not a v2 PROXY header of a stream', () => {
    const reason = (h: ProxyHeader): string => (h.kind === 'invalid' ? h.reason : `not refused: ${JSON.stringify(h)}`);
    expect(reason(parseProxyHeaderV2(Buffer.from('GET / HTTP/1.1\r\n\r\n')))).to.match(/signature/);
    expect(reason(parseProxyHeaderV2(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n')))).to.match(/signature/);
    const v4 = proxyV4('1.2.3.4');
    const with13 = (b: number): Buffer => Buffer.concat([v4.subarray(0, 12), Buffer.from([b]), v4.subarray(13)]);
    const with14 = (b: number): Buffer => Buffer.concat([v4.subarray(0, 13), Buffer.from([b]), v4.subarray(14)]);
    expect(reason(parseProxyHeaderV2(with13(0x11)))).to.match(/version 1, not 2/);
    expect(reason(parseProxyHeaderV2(with13(0x22)))).to.match(/command 2/);
    expect(reason(parseProxyHeaderV2(with14(0x41)))).to.match(/address family 4/);
    expect(reason(parseProxyHeaderV2(with14(0x12)))).to.match(/datagrams/);
    expect(reason(parseProxyHeaderV2(with14(0x13)))).to.match(/transport 3/);
    expect(reason(parseProxyHeaderV2(proxyHeaderV2({ command: 1, family: 1, transport: 1, addresses: bytes(11) })))).to.match(/shorter than the 12 bytes/);
    expect(reason(parseProxyHeaderV2(proxyHeaderV2({ command: 1, family: 2, transport: 1, addresses: bytes(35) })))).to.match(/shorter than the 36 bytes/);
  });

  it('asks for more bytes on every cut of a valid header, and refuses at once on the first wrong byte', () => {
    const header = proxyV4('198.51.100.9', Uint8Array.from([0x05, 0x00, 0x01, 0x07]));
    for (let n = 0; n < header.length; n++) expect(parseProxyHeaderV2(header.subarray(0, n)).kind, `${n} bytes`).to.equal('incomplete');
    expect(parseProxyHeaderV2(Buffer.from([0x0d, 0x0a, 0x0d, 0x0b]))).to.include({ kind: 'invalid' });
    expect(parseProxyHeaderV2(Buffer.from('G'))).to.include({ kind: 'invalid' });
  });

  it('any bytes: an answer, never a throw; complete only within the bytes; the same answer for every longer input', () => {
    // Inputs that start with the signature reach the fields after it; others are refused at the start.
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 80 }),
      fc.tuple(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.uint8Array({ maxLength: 300 })).map(([fixed, rest]) => Buffer.concat([PROXY_V2_SIGNATURE, fixed, rest])),
      fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.uint8Array({ maxLength: 260 }), fc.uint8Array({ maxLength: 40 })).map(([command, family, transport, addresses, rest]) =>
        Buffer.concat([proxyHeaderV2({ command, family, transport, addresses }), rest]),
      ),
    );
    fc.assert(
      fc.property(input, fc.uint8Array({ maxLength: 40 }), (b, more) => {
        const answer = parseProxyHeaderV2(b);
        const longer = parseProxyHeaderV2(Buffer.concat([b, more]));
        if (answer.kind === 'incomplete') {
          expect(answer.needed).to.be.greaterThan(b.length);
          return;
        }
        // Refused or complete: more bytes change nothing, so a reader can act on the first answer.
        expect(longer).to.deep.equal(answer);
        if (answer.kind === 'complete') {
          expect(answer.length).to.be.within(16, b.length);
          expect(parseProxyHeaderV2(b.subarray(0, answer.length))).to.deep.equal(answer);
          if (answer.source !== null) expect(answer.source).to.match(/^(\d{1,3}\.){3}\d{1,3}$|:/);
        }
      }),
      { numRuns: 3000, seed: 20261207 },
    );
  });

  it('any IPv4 or IPv6 source comes back as node writes socket addresses', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), fc.uint8Array({ maxLength: 64 }), (address, after) => {
        const v6 = address.includes(':');
        const raw = v6 ? ipv6Bytes(address) : Uint8Array.from(address.split('.').map(Number));
        const block = Uint8Array.from([...raw, ...bytes(raw.length), 0, 80, 1, 187]);
        const header = proxyHeaderV2({ command: 1, family: v6 ? 2 : 1, transport: 1, addresses: block });
        const answer = parseProxyHeaderV2(Buffer.concat([header, after]));
        // The same address (its bytes), in the text node gives a socket's remoteAddress.
        const expected = v6 ? new SocketAddress({ address, family: 'ipv6' }).address : address;
        expect(answer).to.deep.equal({ kind: 'complete', length: header.length, source: expected });
        if (v6) expect([...ipv6Bytes(expected)]).to.deep.equal([...raw]);
      }),
      { numRuns: 500, seed: 20261207 },
    );
  });
});

/** The 16 bytes of an IPv6 address in text (the WHATWG URL parser expands it for us). */
function ipv6Bytes(text: string): Uint8Array {
  const host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const [left = '', right = ''] = host.includes('::') ? host.split('::') : [host, ''];
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? dotted(g) : [parseInt(g, 16)])));
  const l = groups(left);
  const r = groups(right);
  const all = [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  return Uint8Array.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

function dotted(g: string): number[] {
  const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
  return [(a << 8) | b, (c << 8) | d];
}
