// Whose address a request comes from, for every rule kept per address (anonymous WebSocket connections,
// wrong admin tokens) and for the logs. Without TRUST_PROXY it is the TCP peer's, whatever the request
// says: a server exposed directly cannot be told another address. With TRUST_PROXY (addresses, CIDRs,
// or proxy-addr's names loopback, linklocal, uniquelocal), a peer in that list is a proxy, and the
// client is the nearest address of X-Forwarded-For that is not (proxy-addr, express's own reading of
// it, walks the header from its right end, so entries a client wrote itself are never reached past an
// untrusted hop). On a PROXY protocol connection (proxy-protocol-reader.ts) the header's source stands
// for the peer. Addresses are kept in one form (IPv4-mapped IPv6 as IPv4, IPv6 as RFC 5952), so the
// same client is one key however it was written.
import type { IncomingMessage } from 'node:http';
import { isIP, SocketAddress, type Socket } from 'node:net';
import proxyaddr from 'proxy-addr';
import { proxiedSource } from './proxy-protocol-reader.ts';

/** Reads TRUST_PROXY: entries separated by commas or blanks; throws naming the first bad one. */
export function parseTrustedProxies(raw: string): string[] {
  const entries = raw.split(/[\s,]+/).filter((e) => e !== '');
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new Error(`${JSON.stringify(entry)} is not an IP address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
  }
  return entries;
}

/** One text per address: IPv4-mapped IPv6 as IPv4, IPv6 compressed; null when it is no IP address. */
export function canonicalAddress(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return null;
  const text = new SocketAddress({ address, family: 'ipv6' }).address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  return mapped === null ? text : (mapped[1] as string);
}

/** What proxy-addr reads of a request (forwarded 0.2: the header and the socket's remote address). */
interface ForwardedView {
  readonly headers: IncomingMessage['headers'];
  readonly socket: { readonly remoteAddress: string };
}

export class ClientAddresses {
  /** TRUST_PROXY is set: some peers are proxies. */
  readonly trusting: boolean;
  private readonly trust: (address: string, hop: number) => boolean;

  constructor(trustedProxies: readonly string[]) {
    this.trusting = trustedProxies.length > 0;
    this.trust = proxyaddr.compile([...trustedProxies]);
  }

  /** Whether the connection's peer is a trusted proxy. */
  trusts(address: string | undefined): boolean {
    return address !== undefined && this.trust(address, 0);
  }

  /** The connection's peer: the PROXY header's source on such a connection, else the TCP peer. */
  peerOf(socket: Socket): string {
    const proxied = proxiedSource(socket);
    if (proxied !== undefined) return canonicalAddress(proxied) ?? proxied;
    const remote = socket.remoteAddress;
    return remote === undefined ? 'unknown' : (canonicalAddress(remote) ?? remote);
  }

  /** The client's address (see the file's head). */
  of(req: IncomingMessage): string {
    const peer = this.peerOf(req.socket);
    if (!this.trusting || peer === 'unknown') return peer;
    const view: ForwardedView = { headers: req.headers, socket: { remoteAddress: peer } };
    // proxy-addr's types ask for a whole IncomingMessage; it reads only what ForwardedView holds.
    const chain = proxyaddr.all(view as unknown as IncomingMessage, this.trust);
    // The nearest untrusted hop; when a trusted proxy passed on something that is no address, the
    // client is that proxy's (it is the last one that can be believed).
    for (let i = chain.length - 1; i >= 0; i--) {
      const address = canonicalAddress(chain[i] as string);
      if (address !== null) return address;
    }
    return peer;
  }
}
