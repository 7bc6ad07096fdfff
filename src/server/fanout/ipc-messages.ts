// What goes over the Node IPC channel between the main process and the fan-out child: only socket
// handles and lifecycle. Everything ordered (events, answers, syncs, figures) goes over the data
// channel (records.ts), which has no per-message serialization cost.
import type { IncomingHttpHeaders } from 'node:http';

/** The data channel's file descriptor in the child (stdio: ignore, inherit, inherit, ipc, pipe). */
export const CHANNEL_FD = 4;

/** An HTTP upgrade to /ws, handed over with its socket: what the child needs to finish the upgrade. */
export interface UpgradeMessage {
  readonly type: 'upgrade';
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Bytes read past the request head (base64), usually none. */
  readonly head: string;
  /** The client's address, resolved here (TRUST_PROXY, a PROXY header this process read). */
  readonly address: string;
}

/** Terminate every connection and exit (the main process is shutting down). */
export interface CloseMessage {
  readonly type: 'close';
}

/** The child restored the snapshot and takes connections. */
export interface ReadyMessage {
  readonly type: 'ready';
}

export function isUpgrade(m: unknown): m is UpgradeMessage {
  if (typeof m !== 'object' || m === null) return false;
  const u = m as Record<string, unknown>;
  return u['type'] === 'upgrade' && typeof u['method'] === 'string' && typeof u['url'] === 'string' && typeof u['head'] === 'string' && typeof u['address'] === 'string' && typeof u['headers'] === 'object' && u['headers'] !== null;
}

export function isType(m: unknown, type: string): boolean {
  return typeof m === 'object' && m !== null && (m as Record<string, unknown>)['type'] === type;
}
