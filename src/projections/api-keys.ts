// Every API key that authenticates a trader (competition-rules.md, "Keys"): the trader's primary key
// (given at provisioning, replaced by each rotation) and the keys issued beside it, each with its scope
// (`trade`: everything; `read`: no order entry), label and expiry. Only the SHA-256 of a key is known
// here, as in the log; a key is found by that hash. Expiry is not applied here (the state has no clock):
// the doors compare expires_at with the time of each request and close sessions as keys expire.
import type { ExchangeEvent, IssuedKeyFact, KeyScope } from '../events/types.ts';
import type { TraderView } from './views.ts';

/** A key as the state keeps it. */
export interface KeyRecord {
  readonly key_id: string;
  readonly trader_id: string;
  readonly api_key_hash: string;
  readonly scope: KeyScope;
  readonly label: string | null;
  /** The time of the event that issued it. */
  readonly created_at: string;
  readonly expires_at: string | null;
  /** The key provisioning or the last rotation gave the trader: the one the rotate route replaces. */
  readonly primary: boolean;
}

/** How many keys a trader may hold at once, the primary one included. */
export const MAX_KEYS_PER_TRADER = 20;

/**
 * A key's id: the first 128 bits of its hash (SHA-256, hex) written as a UUID. A function of the key, so
 * the keys of logs written before keys had ids (a provisioning, a rotation) have one without an event
 * naming it; and it tells nothing of the key (the hash is one-way, and only part of it is shown).
 */
export function keyIdOf(hash: string): string {
  if (!/^[0-9a-f]{64}$/.test(hash)) return `key-${hash}`;
  return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20, 32)}`;
}

function primaryKey(traderId: string, hash: string, time: string): KeyRecord {
  return { key_id: keyIdOf(hash), trader_id: traderId, api_key_hash: hash, scope: 'trade', label: null, created_at: time, expires_at: null, primary: true };
}

/** A trader's keys as a snapshot or the state hash lists them (every field, in a fixed order). */
export type KeyTuple = [key_id: string, api_key_hash: string, scope: KeyScope, label: string | null, created_at: string, expires_at: string | null, primary: boolean];

export class ApiKeysProjection {
  private readonly byHash = new Map<string, KeyRecord>();
  /** Per trader, its keys in the order they were issued. */
  private readonly byTrader = new Map<string, KeyRecord[]>();

  /** The key with this hash, whoever holds it. */
  byApiKeyHash(hash: string): KeyRecord | undefined {
    return this.byHash.get(hash);
  }

  /** A trader's keys, oldest first. */
  keysOf(traderId: string): readonly KeyRecord[] {
    return this.byTrader.get(traderId) ?? [];
  }

  find(traderId: string, keyId: string): KeyRecord | undefined {
    return this.keysOf(traderId).find((k) => k.key_id === keyId);
  }

  apply(event: ExchangeEvent): void {
    switch (event.type) {
      case 'TraderProvisioned':
        this.add(primaryKey(event.data.trader_id, event.data.api_key_hash, event.time));
        break;
      case 'TradersProvisioned':
        for (const t of event.data.traders) this.add(primaryKey(t.trader_id, t.api_key_hash, event.time));
        break;
      case 'ApiKeyRotated': {
        // The old primary key stops at once (if it was not revoked already); the others stay.
        const old = this.keysOf(event.data.trader_id).find((k) => k.primary);
        if (old !== undefined) this.remove(old);
        this.add(primaryKey(event.data.trader_id, event.data.api_key_hash, event.time));
        break;
      }
      case 'ApiKeyIssued':
        this.add(issuedKey(event.data, event.time));
        break;
      case 'ApiKeyRevoked': {
        const key = this.find(event.data.trader_id, event.data.key_id);
        if (key === undefined) throw new Error(`api keys: ${event.data.trader_id} holds no key ${event.data.key_id}`);
        this.remove(key);
        break;
      }
      default:
        break;
    }
  }

  /**
   * The traders whose keys are not just the primary key their record names, created with the trader:
   * those that were issued keys, had one revoked or rotated theirs. Everything else a snapshot needs is
   * in the traders' records (restoreDefaults), so a snapshot of an exchange that never used keys holds
   * no more than before.
   */
  *changed(traders: Iterable<TraderView>): IterableIterator<[trader_id: string, keys: KeyTuple[]]> {
    for (const t of traders) {
      const keys = this.keysOf(t.trader_id);
      const only = keys[0];
      if (keys.length === 1 && only !== undefined && only.primary && only.api_key_hash === t.api_key_hash && only.created_at === t.created_at) continue;
      yield [t.trader_id, keys.map(keyTuple)];
    }
  }

  /**
   * What the state hash covers of the keys: each trader's issued keys, and whether its primary key was
   * revoked (the primary key itself is in the trader's record, as it always was). Empty for a log that
   * never issued or revoked a key, which therefore hashes as before.
   */
  *hashed(traders: Iterable<TraderView>): IterableIterator<[trader_id: string, primary_revoked: boolean, issued: KeyTuple[]]> {
    for (const t of traders) {
      const keys = this.keysOf(t.trader_id);
      const issued = keys.filter((k) => !k.primary).map(keyTuple);
      const revoked = !keys.some((k) => k.primary);
      if (issued.length > 0 || revoked) yield [t.trader_id, revoked, issued];
    }
  }

  /** From a snapshot: each trader's primary key from its record, as provisioning gave it. */
  restoreDefaults(traders: Iterable<TraderView>): void {
    for (const t of traders) if (!this.byTrader.has(t.trader_id)) this.add(primaryKey(t.trader_id, t.api_key_hash, t.created_at));
  }

  /** From a snapshot: a trader's keys as `changed` listed them, in place of what restoreDefaults gave it. */
  restoreTrader(traderId: string, keys: readonly KeyTuple[]): void {
    for (const k of [...this.keysOf(traderId)]) this.remove(k);
    this.byTrader.set(traderId, []);
    for (const [key_id, api_key_hash, scope, label, created_at, expires_at, primary] of keys) this.add({ key_id, trader_id: traderId, api_key_hash, scope, label, created_at, expires_at, primary });
  }

  private add(key: KeyRecord): void {
    // Keys are random (decide refuses a hash in use), but logs from elsewhere may give two traders one
    // hash, as the index by hash always let them: the newer key is the one it finds.
    this.byHash.set(key.api_key_hash, key);
    let keys = this.byTrader.get(key.trader_id);
    if (keys === undefined) {
      keys = [];
      this.byTrader.set(key.trader_id, keys);
    }
    keys.push(key);
  }

  private remove(key: KeyRecord): void {
    if (this.byHash.get(key.api_key_hash) === key) this.byHash.delete(key.api_key_hash);
    const keys = this.byTrader.get(key.trader_id);
    if (keys === undefined) return;
    const i = keys.indexOf(key);
    if (i >= 0) keys.splice(i, 1);
  }
}

function issuedKey(k: IssuedKeyFact, time: string): KeyRecord {
  return { key_id: k.key_id, trader_id: k.trader_id, api_key_hash: k.api_key_hash, scope: k.scope, label: k.label, created_at: time, expires_at: k.expires_at, primary: false };
}

function keyTuple(k: KeyRecord): KeyTuple {
  return [k.key_id, k.api_key_hash, k.scope, k.label, k.created_at, k.expires_at, k.primary];
}
