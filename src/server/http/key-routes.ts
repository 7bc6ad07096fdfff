// API keys with scopes (competition-rules.md, "Keys"): the organizer issues, lists and revokes any
// trader's keys; a trader lists its own with any key, and with a trade key creates read keys for itself
// (a dashboard or a notebook need not hold a key that trades) and revokes its keys. A secret is shown
// only in the answer that creates it: the command, the event and the log hold its SHA-256 alone.
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';
import { KEY_LABEL_MAX } from '../../commands/decide-keys.ts';
import type { KeyScope } from '../../events/types.ts';
import type { KeyRecord } from '../../projections/api-keys.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { formatMicros, hashApiKey, newApiKey, parseMicros } from '../clock.ts';
import type { KeyUsage } from '../keys/key-usage.ts';
import { TraderIdParams } from './operator-inputs.ts';
import { ApiKeySchema, IssuedKeyResponse } from './response-schemas.ts';
import { callerOf, defineRoute, type AnyRoute, type Call } from './route.ts';
import { eventOf, runCommand } from './run-command.ts';

const KeyScopeInput = z.enum(['trade', 'read']);
const Label = z.string().max(KEY_LABEL_MAX * 4).nullable().optional().meta({ description: `at most ${KEY_LABEL_MAX} characters, trimmed; e.g. "dashboard"` });
const ExpiresAt = z.iso.datetime({ offset: true }).nullable().optional().meta({ description: 'RFC 3339 time in the future; omit or null: never expires', example: '2026-06-30T18:00:00Z' });

// Strict: a key is made from an empty body too, so a body meant for another route must not make one.
export const AdminKeyBody = z.strictObject({ scope: KeyScopeInput, label: Label, expires_at: ExpiresAt });
export const OwnKeyBody = z
  .strictObject({ scope: KeyScopeInput.optional().meta({ description: 'read (the default, and the only scope a trader may create)' }), label: Label, expires_at: ExpiresAt })
  .optional()
  .transform((b) => b ?? {});
const KeyIdParams = z.object({ key_id: z.string().max(128).meta({ description: 'the key id (from the list of keys)' }) });
const TraderKeyParams = TraderIdParams.extend(KeyIdParams.shape);

const TAG_ADMIN = 'Admin';
const TAG_TRADER = 'Trader';

/** A key as the API shows it: never its secret or its hash; its last use from the service (key-usage.ts). */
export function keyView(k: KeyRecord, usage: KeyUsage): z.infer<typeof ApiKeySchema> {
  return { key_id: k.key_id, scope: k.scope, label: k.label, created_at: k.created_at, expires_at: k.expires_at, last_used_at: usage.lastUsedAt(k.key_id), primary: k.primary };
}

function keysOf(state: ExchangeState, traderId: string, usage: KeyUsage): z.infer<typeof ApiKeySchema>[] {
  if (state.traders.get(traderId) === undefined) throw new DomainError('trader_not_found', `trader ${traderId} not found`);
  return state.keys.keysOf(traderId).map((k) => keyView(k, usage));
}

/** Issues a key: the secret made here, only its hash in the command; the answer shows it once. */
function issue(call: Call<unknown, unknown, unknown>, traderId: string, scope: KeyScope, label: string | null | undefined, expiresAt: string | null | undefined) {
  const apiKey = newApiKey();
  const hash = hashApiKey(apiKey);
  const expires = expiresAt === undefined || expiresAt === null ? null : formatMicros(parseMicros(expiresAt));
  const { state } = call.context.service;
  return runCommand(call, 201, (s) => ({ type: 'IssueApiKey', time: s.time, trader_id: traderId, api_key_hash: hash, scope, label: label ?? null, expires_at: expires }), (event) => {
    const d = eventOf(event, 'ApiKeyIssued').data;
    return { key: keyView(state.keys.find(d.trader_id, d.key_id) as KeyRecord, call.context.keyUsage), api_key: apiKey };
  });
}

/** Revokes one key; the answer shows it as it was. */
function revoke(call: Call<unknown, unknown, unknown>, traderId: string, keyId: string) {
  const { state } = call.context.service;
  const before = state.keys.find(traderId, keyId);
  return runCommand(call, 200, (s) => ({ type: 'RevokeApiKey', time: s.time, trader_id: traderId, key_id: keyId }), (event) => {
    eventOf(event, 'ApiKeyRevoked');
    return { key: keyView(before as KeyRecord, call.context.keyUsage) };
  });
}

const REVOKED = z.object({ key: ApiKeySchema.meta({ description: 'the key as it was; it no longer authenticates' }) });

export const keyRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users/{trader_id}/keys',
    access: 'admin',
    tag: TAG_ADMIN,
    summary: 'Issue another API key to a trader, with a scope (trade or read), a label and an expiry',
    description:
      'The key works beside the trader\'s others (rotation without downtime: issue the new key, move the bots, revoke the old one). ' +
      'The secret is shown only in this answer. A trader holds at most 20 keys.',
    params: TraderIdParams,
    body: AdminKeyBody,
    success: { status: 201, description: 'the key and its secret', schema: IssuedKeyResponse },
    errors: ['trader_not_found', 'invalid_key_label', 'invalid_expires_at', 'too_many_keys'],
    handle: (call) => issue(call, call.params.trader_id, call.body.scope, call.body.label, call.body.expires_at),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/users/{trader_id}/keys',
    access: 'admin',
    tag: TAG_ADMIN,
    summary: 'A trader\'s API keys (never their secrets), oldest first, with when each was last used',
    params: TraderIdParams,
    success: { status: 200, description: 'array of ApiKey', schema: z.array(ApiKeySchema) },
    errors: ['trader_not_found'],
    handle: (call) => keysOf(call.context.service.state, call.params.trader_id, call.context.keyUsage),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/admin/users/{trader_id}/keys/{key_id}',
    access: 'admin',
    tag: TAG_ADMIN,
    summary: 'Revoke one API key of a trader; its WebSocket sessions are closed, the trader\'s other keys keep working',
    description: 'Requests with the key get 401 invalid_api_key from then on; its WebSocket sessions are closed (code 4001, reason "api key revoked").',
    params: TraderKeyParams,
    success: { status: 200, description: 'the revoked key', schema: REVOKED },
    errors: ['trader_not_found', 'key_not_found'],
    handle: (call) => revoke(call, call.params.trader_id, call.params.key_id),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/keys',
    access: 'trader',
    scope: 'read',
    rateLimited: true,
    tag: TAG_TRADER,
    summary: 'The caller\'s API keys (never their secrets), oldest first, with when each was last used',
    success: { status: 200, description: 'array of ApiKey', schema: z.array(ApiKeySchema) },
    errors: [],
    handle: (call) => keysOf(call.context.service.state, callerOf(call).trader_id, call.context.keyUsage),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/keys',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG_TRADER,
    summary: 'Create a read key for the caller (a dashboard or a notebook need not hold a key that trades)',
    description: 'Needs a trade key. A read key reads everything a trader may read and places no orders. A trade key comes only from the organizer. The secret is shown only in this answer.',
    body: OwnKeyBody,
    success: { status: 201, description: 'the key and its secret', schema: IssuedKeyResponse },
    errors: ['invalid_key_label', 'invalid_expires_at', 'too_many_keys'],
    handle: (call) => {
      if (call.body.scope === 'trade') throw new DomainError('insufficient_scope', 'a trader creates read keys only; a trade key comes from the organizer');
      return issue(call, callerOf(call).trader_id, 'read', call.body.label, call.body.expires_at);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/keys/{key_id}',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG_TRADER,
    summary: 'Revoke one of the caller\'s API keys (its WebSocket sessions are closed)',
    description: 'Needs a trade key. Any of the caller\'s keys, the one presented included (it stops once this answer is sent).',
    params: KeyIdParams,
    success: { status: 200, description: 'the revoked key', schema: REVOKED },
    errors: ['key_not_found'],
    handle: (call) => revoke(call, callerOf(call).trader_id, call.params.key_id),
  }),
];
