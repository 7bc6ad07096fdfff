// Hashing is pure computation; it is the one thing the core takes from node:crypto (`hash` and
// `createHash` only, never a random source: the import check in test/architecture.spec.ts holds that line).
import { createHash, hash } from 'node:crypto';
import { canonicalJson, writeCanonical } from './canonical.ts';
import type { RecordedEvent } from './upcasters/upcast.ts';

export const GENESIS_HASH = '0'.repeat(64);

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** SHA-256 of the canonical text of `value`, hashed in pieces: the text is never one string (canonical.ts). */
export function sha256Canonical(value: unknown): string {
  const digest = createHash('sha256');
  writeCanonical(value, (piece) => digest.update(piece, 'utf8'));
  return digest.digest('hex');
}

/** The chain link of the log: H(previous hash ‖ canonical event), over the event as recorded (any version). */
export function chainHash(previousHash: string, event: RecordedEvent): string {
  // One-shot hashing of the concatenation: the same digest as two updates, and much cheaper per event.
  return hash('sha256', previousHash + canonicalJson(event), 'hex');
}
