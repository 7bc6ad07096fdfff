// Hashing is pure computation; it is the one thing the core takes from node:crypto (createHash only,
// never a random source: the import check in test/architecture.spec.ts holds that line).
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical.ts';
import type { ExchangeEvent } from './types.ts';

export const GENESIS_HASH = '0'.repeat(64);

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The chain link of the log: H(previous hash ‖ canonical event). */
export function chainHash(previousHash: string, event: ExchangeEvent): string {
  return createHash('sha256').update(previousHash).update(canonicalJson(event)).digest('hex');
}
