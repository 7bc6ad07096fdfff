// API keys with scopes in the core (competition-rules.md, "Keys"): several keys per trader, each with a
// scope, a label and an expiry, issued and revoked one by one, each change one event holding only the
// key's hash; rotation replaces the primary key alone; a snapshot carries them.
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import { keyIdOf, MAX_KEYS_PER_TRADER } from '../../src/projections/api-keys.ts';
import { restoreSnapshot, takeSnapshot } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import type { EventBody, ExchangeEvent } from '../../src/events/types.ts';
import { at, given } from './dsl.ts';
import { ALICE, BOB, CAROL, traderProvisioned, WORLD } from './fixtures.ts';

const HASH = 'a'.repeat(64);
const HASH2 = 'b'.repeat(64);
const KEY_ID = keyIdOf(HASH);

function issued(hash = HASH, overrides: Partial<{ scope: 'trade' | 'read'; label: string | null; expires_at: string | null; trader_id: string }> = {}): EventBody {
  return { type: 'ApiKeyIssued', data: { trader_id: ALICE, key_id: keyIdOf(hash), api_key_hash: hash, scope: 'read', label: null, expires_at: null, ...overrides } };
}

describe('core: API keys', () => {
  it('a key id is the first 128 bits of the key\'s hash written as a UUID', () => {
    expect(keyIdOf('0123456789abcdef'.repeat(4))).to.equal('01234567-89ab-cdef-0123-456789abcdef');
  });

  it('issues a key beside the primary one: its hash, scope, trimmed label and expiry in one event', () => {
    const s = given(...WORLD);
    s.when({ type: 'IssueApiKey', trader_id: ALICE, api_key_hash: HASH, scope: 'read', label: '  dashboard ', expires_at: '2026-01-02T00:00:00.000000Z' }).then({
      type: 'ApiKeyIssued',
      data: { trader_id: ALICE, key_id: KEY_ID, api_key_hash: HASH, scope: 'read', label: 'dashboard', expires_at: '2026-01-02T00:00:00.000000Z' },
    });
    const keys = s.exchange.state.keys.keysOf(ALICE);
    expect(keys.map((k) => [k.scope, k.label, k.primary])).to.deep.equal([
      ['trade', null, true],
      ['read', 'dashboard', false],
    ]);
    expect(s.exchange.state.keys.byApiKeyHash(HASH)?.trader_id).to.equal(ALICE);
    expect(s.exchange.state.keys.byApiKeyHash('hash-alice')?.key_id).to.equal(keys[0]?.key_id);
  });

  it('refuses an unknown trader (404), a bad label or expiry (400), a twenty-first key (409); nothing changes', () => {
    given(...WORLD).when({ type: 'IssueApiKey', trader_id: 'nobody', api_key_hash: HASH, scope: 'read', label: null, expires_at: null }).thenRejects('trader_not_found');
    for (const label of ['x'.repeat(65), 'tab\there']) given(...WORLD).when({ type: 'IssueApiKey', trader_id: ALICE, api_key_hash: HASH, scope: 'read', label, expires_at: null }).thenRejects('invalid_key_label');
    // Commands of these specs run at 2026-01-01T00:00:01.x: an expiry then or before never worked.
    for (const expires of ['2025-12-31T23:59:59.000000Z', '2026-01-01T00:00:00.000000Z', 'tomorrow']) {
      given(...WORLD).when({ type: 'IssueApiKey', trader_id: ALICE, api_key_hash: HASH, scope: 'read', label: null, expires_at: expires }).thenRejects('invalid_expires_at');
    }
    const full = [...WORLD, ...Array.from({ length: MAX_KEYS_PER_TRADER - 1 }, (_, i) => issued(i.toString(16).padStart(64, 'c')))];
    given(...full).when({ type: 'IssueApiKey', trader_id: ALICE, api_key_hash: HASH, scope: 'read', label: null, expires_at: null }).thenRejects('too_many_keys', /at most 20/);
  });

  it('revokes one key alone; an unknown key, or another trader\'s, is 404', () => {
    const s = given(...WORLD, issued(HASH), issued(HASH2, { scope: 'trade' }));
    s.when({ type: 'RevokeApiKey', trader_id: ALICE, key_id: KEY_ID }).then({ type: 'ApiKeyRevoked', data: { trader_id: ALICE, key_id: KEY_ID } });
    expect(s.exchange.state.keys.byApiKeyHash(HASH)).to.equal(undefined);
    expect(s.exchange.state.keys.byApiKeyHash(HASH2)?.scope).to.equal('trade');
    expect(s.exchange.state.keys.byApiKeyHash('hash-alice')?.primary).to.equal(true);
    given(...WORLD, issued(HASH)).when({ type: 'RevokeApiKey', trader_id: BOB, key_id: KEY_ID }).thenRejects('key_not_found');
    given(...WORLD).when({ type: 'RevokeApiKey', trader_id: ALICE, key_id: KEY_ID }).thenRejects('key_not_found');
  });

  it('the primary key can be revoked too; a rotation then gives the trader a new one', () => {
    const primary = keyIdOf('hash-alice');
    const s = given(...WORLD, { type: 'ApiKeyRevoked', data: { trader_id: ALICE, key_id: primary } });
    expect(s.exchange.state.keys.keysOf(ALICE)).to.deep.equal([]);
    s.when({ type: 'RotateApiKey', trader_id: ALICE, api_key_hash: HASH }).then({ type: 'ApiKeyRotated', data: { trader_id: ALICE, api_key_hash: HASH } });
    expect(s.exchange.state.keys.keysOf(ALICE).map((k) => [k.key_id, k.primary])).to.deep.equal([[KEY_ID, true]]);
  });

  it('a rotation replaces the primary key and leaves the issued ones', () => {
    const s = given(...WORLD, issued(HASH2));
    s.when({ type: 'RotateApiKey', trader_id: ALICE, api_key_hash: HASH }).then({ type: 'ApiKeyRotated', data: { trader_id: ALICE, api_key_hash: HASH } });
    const keys = s.exchange.state.keys;
    expect(keys.byApiKeyHash('hash-alice')).to.equal(undefined);
    expect(keys.keysOf(ALICE).map((k) => [k.api_key_hash, k.primary])).to.deep.equal([
      [HASH2, false],
      [HASH, true],
    ]);
  });

  it('a snapshot carries every key (issued, revoked, rotated) and restores the same state and hash', () => {
    const source = new Exchange();
    let n = 1;
    const fold = (body: EventBody): void => source.fold({ seq: source.seq + 1, time: at(n++), v: 3, ...body } as ExchangeEvent);
    const bodies: EventBody[] = [
      ...WORLD,
      traderProvisioned(CAROL, 'carol'),
      issued(HASH, { label: 'notebook', expires_at: '2027-01-01T00:00:00.000000Z' }),
      issued(HASH2, { trader_id: BOB, scope: 'trade' }),
      { type: 'ApiKeyRotated', data: { trader_id: BOB, api_key_hash: 'c'.repeat(64) } },
      { type: 'ApiKeyRevoked', data: { trader_id: ALICE, key_id: keyIdOf('hash-alice') } },
    ];
    for (const body of bodies) fold(body);
    const restored = new Exchange();
    restoreSnapshot(restored.state, JSON.parse(JSON.stringify(takeSnapshot(source.state))) as ReturnType<typeof takeSnapshot>);
    expect(stateHash(restored.state)).to.equal(stateHash(source.state));
    for (const t of [ALICE, BOB, CAROL]) expect(restored.state.keys.keysOf(t), t).to.deep.equal(source.state.keys.keysOf(t));
    expect(restored.state.keys.byApiKeyHash(HASH2)?.trader_id).to.equal(BOB);
    expect(restored.state.keys.byApiKeyHash('hash-bob')).to.equal(undefined);
  });

  it('the state hash covers issued and revoked keys, and a log without them hashes as before', () => {
    const base = given(...WORLD).exchange.state;
    const withKey = given(...WORLD, issued(HASH)).exchange.state;
    const revoked = given(...WORLD, issued(HASH), { type: 'ApiKeyRevoked', data: { trader_id: ALICE, key_id: KEY_ID } }).exchange.state;
    expect(stateHash(withKey)).to.not.equal(stateHash(base));
    expect(stateHash(revoked)).to.not.equal(stateHash(withKey));
    // A primary key revoked is part of the picture too.
    const noPrimary = given(...WORLD, { type: 'ApiKeyRevoked', data: { trader_id: ALICE, key_id: keyIdOf('hash-alice') } }).exchange.state;
    expect(stateHash(noPrimary)).to.not.equal(stateHash(base));
  });
});
