// Deciding API keys beside a trader's primary one (competition-rules.md, "Keys"): issuing a key with
// its scope, label and expiry, and revoking one key alone. The key arrives hashed: the command, the
// event and the log only ever hold its SHA-256.
import type { EventBody } from '../events/types.ts';
import { keyIdOf, MAX_KEYS_PER_TRADER } from '../projections/api-keys.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import { fail } from './errors.ts';
import { hasControlCharacters } from './rules.ts';
import type { CommandOf } from './types.ts';

export const KEY_LABEL_MAX = 64;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function knownTrader(state: ExchangeState, traderId: string): void {
  if (state.traders.get(traderId) === undefined) fail('trader_not_found', `trader ${traderId} not found`);
}

export function decideIssueApiKey(state: ExchangeState, c: CommandOf<'IssueApiKey'>): EventBody {
  knownTrader(state, c.trader_id);
  const label = c.label === null ? null : c.label.trim();
  if (label !== null && ([...label].length > KEY_LABEL_MAX || hasControlCharacters(label))) fail('invalid_key_label');
  // Expiry is a time the command's own time has not reached: a key that never worked is a mistake.
  if (c.expires_at !== null && (!TIME.test(c.expires_at) || c.expires_at <= c.time)) fail('invalid_expires_at', `expires_at must be an RFC 3339 time after now (${c.time})`);
  const held = state.keys.keysOf(c.trader_id).length;
  if (held >= MAX_KEYS_PER_TRADER) fail('too_many_keys', `too many keys: a trader holds at most ${MAX_KEYS_PER_TRADER}; revoke one first`);
  // A new key is 128 random bits: a hash already known is not a key the server made.
  if (state.keys.byApiKeyHash(c.api_key_hash) !== undefined) throw new Error('keys: a new key\'s hash is already in use');
  return {
    type: 'ApiKeyIssued',
    data: { trader_id: c.trader_id, key_id: keyIdOf(c.api_key_hash), api_key_hash: c.api_key_hash, scope: c.scope, label: label === '' ? null : label, expires_at: c.expires_at },
  };
}

export function decideRevokeApiKey(state: ExchangeState, c: CommandOf<'RevokeApiKey'>): EventBody {
  knownTrader(state, c.trader_id);
  if (state.keys.find(c.trader_id, c.key_id) === undefined) fail('key_not_found', `trader ${c.trader_id} holds no key ${c.key_id}`);
  return { type: 'ApiKeyRevoked', data: { trader_id: c.trader_id, key_id: c.key_id } };
}
