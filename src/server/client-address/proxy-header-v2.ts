// The PROXY protocol's version 2 header (HAProxy's proxy-protocol.txt, section 2.2), which a proxy
// sends ahead of the client's bytes on a connection to say whom it carries. Parsed by hand: the npm
// parsers (proxy-protocol-js, @balena/proxy-protocol-parser) neither check the declared length against
// the bytes they were given nor say where the header ends, and a reader of a live socket needs both.
// It is strict and total: any input gives one of three answers and never throws, since a connection
// that starts this way comes from outside.
import { SocketAddress } from 'node:net';

/** The 12 bytes every version 2 header starts with. */
export const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
/** Signature, version and command, family and transport, length. */
export const PROXY_V2_FIXED_BYTES = 16;

export type ProxyHeader =
  /** A valid start: more bytes are needed (at least `needed` in all). */
  | { readonly kind: 'incomplete'; readonly needed: number }
  | { readonly kind: 'invalid'; readonly reason: string }
  /**
   * The header takes the first `length` bytes. `source` is the client's address, or null when the
   * proxy speaks for itself (LOCAL: its own health check) or names no internet address (UNSPEC, UNIX):
   * then the connection's own peer is the client.
   */
  | { readonly kind: 'complete'; readonly length: number; readonly source: string | null };

const LOCAL = 0x0;
const PROXY = 0x1;
const UNSPEC = 0x0;
const INET = 0x1;
const INET6 = 0x2;
const UNIX = 0x3;
const STREAM = 0x1;
const DGRAM = 0x2;
/** Bytes of the addresses (source, destination, then the two ports) for each family. */
const ADDRESS_BYTES: Readonly<Record<number, number>> = { [UNSPEC]: 0, [INET]: 12, [INET6]: 36, [UNIX]: 216 };

/** Reads a version 2 header from the start of `bytes` (what a connection sent so far). */
export function parseProxyHeaderV2(bytes: Uint8Array): ProxyHeader {
  const signed = Math.min(bytes.length, PROXY_V2_SIGNATURE.length);
  for (let i = 0; i < signed; i++) if (bytes[i] !== PROXY_V2_SIGNATURE[i]) return { kind: 'invalid', reason: 'not a PROXY protocol v2 header (signature)' };
  if (bytes.length < PROXY_V2_FIXED_BYTES) return { kind: 'incomplete', needed: PROXY_V2_FIXED_BYTES };
  const versionCommand = bytes[12] as number;
  const familyTransport = bytes[13] as number;
  if (versionCommand >> 4 !== 0x2) return { kind: 'invalid', reason: `PROXY protocol version ${versionCommand >> 4}, not 2` };
  const command = versionCommand & 0x0f;
  if (command !== LOCAL && command !== PROXY) return { kind: 'invalid', reason: `unknown PROXY protocol command ${command}` };
  const length = PROXY_V2_FIXED_BYTES + (((bytes[14] as number) << 8) | (bytes[15] as number));
  // LOCAL (the proxy's own health check): the block after the fixed part is skipped, family included.
  if (command === LOCAL) return bytes.length < length ? { kind: 'incomplete', needed: length } : { kind: 'complete', length, source: null };
  const family = familyTransport >> 4;
  const transport = familyTransport & 0x0f;
  const addressBytes = ADDRESS_BYTES[family];
  if (addressBytes === undefined) return { kind: 'invalid', reason: `unknown PROXY protocol address family ${family}` };
  if (transport > STREAM) return { kind: 'invalid', reason: transport === DGRAM ? 'a PROXY protocol header for datagrams on a stream connection' : `unknown PROXY protocol transport ${transport}` };
  if (length - PROXY_V2_FIXED_BYTES < addressBytes) return { kind: 'invalid', reason: `PROXY protocol length ${length - PROXY_V2_FIXED_BYTES} is shorter than the ${addressBytes} bytes of its addresses` };
  if (bytes.length < length) return { kind: 'incomplete', needed: length };
  // UNSPEC or UNIX: no internet address to take; the connection's own peer stands (the spec allows it).
  if (transport === UNSPEC || (family !== INET && family !== INET6)) return { kind: 'complete', length, source: null };
  const at = PROXY_V2_FIXED_BYTES;
  const source = family === INET ? Array.from(bytes.subarray(at, at + 4)).join('.') : ipv6(bytes.subarray(at, at + 16));
  return { kind: 'complete', length, source };
}

/** RFC 5952 text of 16 bytes (node's own formatting: the form socket addresses are reported in). */
function ipv6(b: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((b[i] as number) << 8) | (b[i + 1] as number)).toString(16));
  return new SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}
