// When a key stops working: its expires_at as a time the doors compare the clock with, on every request
// and for every WebSocket session it authenticated (the state has no clock; competition-rules.md: a key
// past its expires_at is refused as an unknown key is, and its sessions close).
import type { KeyRecord } from '../../projections/api-keys.ts';
import { parseMicros } from '../clock.ts';

/** The key's expiry in ms since 1970; +Infinity for a key that never expires. */
export function expiresAtMs(key: Pick<KeyRecord, 'expires_at'>): number {
  return key.expires_at === null ? Number.POSITIVE_INFINITY : parseMicros(key.expires_at) / 1000;
}

/** Whether the key has expired at `nowMs`. */
export function expired(key: Pick<KeyRecord, 'expires_at'>, nowMs: number): boolean {
  return key.expires_at !== null && nowMs >= expiresAtMs(key);
}
