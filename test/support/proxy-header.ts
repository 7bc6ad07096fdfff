// PROXY protocol v2 headers as a proxy writes them (HAProxy's proxy-protocol.txt, section 2.2), for
// the tests that stand in for a proxy in front of the service.
import { PROXY_V2_SIGNATURE } from '../../src/server/client-address/proxy-header-v2.ts';

export interface ProxyHeaderSpec {
  /** 0 LOCAL, 1 PROXY. */
  readonly command: number;
  /** 0 UNSPEC, 1 INET, 2 INET6, 3 UNIX. */
  readonly family: number;
  /** 0 UNSPEC, 1 STREAM, 2 DGRAM. */
  readonly transport: number;
  /** Source and destination addresses, then their ports. */
  readonly addresses: Uint8Array;
  readonly tlvs?: Uint8Array;
}

export function proxyHeaderV2(spec: ProxyHeaderSpec): Buffer {
  const body = Buffer.concat([spec.addresses, spec.tlvs ?? new Uint8Array()]);
  const fixed = Buffer.from([0x20 | spec.command, (spec.family << 4) | spec.transport, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([PROXY_V2_SIGNATURE, fixed, body]);
}

/** PROXY over TCP/IPv4 from `source` ("a.b.c.d"), what HAProxy's send-proxy-v2 sends for an IPv4 client. */
export function proxyV4(source: string, tlvs?: Uint8Array): Buffer {
  const octets = source.split('.').map(Number);
  return proxyHeaderV2({ command: 1, family: 1, transport: 1, addresses: Uint8Array.from([...octets, 127, 0, 0, 1, 0xc3, 0x50, 0x1f, 0x90]), ...(tlvs === undefined ? {} : { tlvs }) });
}

/** LOCAL: the proxy speaks for itself (its health checks). */
export function proxyLocal(): Buffer {
  return proxyHeaderV2({ command: 0, family: 0, transport: 0, addresses: new Uint8Array() });
}
