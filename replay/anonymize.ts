// Publishing a round (`replay export --anonymize`): the log rewritten so that a team may have it. Traders
// are renamed team-001, team-002, … in the order the log creates them, their ids likewise, everywhere a
// trader is named (orders, fills, cancels, messages' targets, schedules, bulk provisioning, frozen
// standings); no key material is left (each key hash becomes a placeholder no key hashes to, the same
// hash the same placeholder, and a key's id is the placeholder's: a revocation names the key it names in
// the source; a key's label, which a team may have written, becomes "key N"); client
// order ids, which bots often fill with names, become a keyed hash (one random key per export: the same
// id of the same trader stays the same id, and nothing maps back). Operator message texts are kept as
// written. The chain is the new log's own, so it verifies (and audits, and proves) as any log does.
//
// Two reads of the source: the first verifies it whole and learns every trader in order of creation
// (a schedule may name a team before the log provisions it), the second rewrites it, meeting the first
// read's chain hashes batch for batch (VerifiedLog.again).
import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson } from '../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../src/events/hash.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { keyIdOf } from '../src/projections/api-keys.ts';
import { byStanding } from '../src/projections/leaderboard.ts';
import { Progress } from './progress.ts';
import { VerifiedLog, type LogSourceOptions } from './verified-log.ts';

/** Who each trader of the log becomes. */
interface Team {
  readonly traderId: string;
  readonly username: string;
}

const TRADER_ID_FIELDS = new Set(['trader_id', 'maker_trader_id', 'target_trader_id']);
const USERNAME_FIELDS = new Set(['username', 'target_username']);

export class Anonymizer {
  private readonly byId = new Map<string, Team>();
  private readonly byName = new Map<string, Team>();
  private readonly cidKey = randomBytes(32);
  /** Each key hash of the source, its placeholder; each key id, the placeholder's key id. */
  private readonly keyHashes = new Map<string, string>();
  private readonly keyIds = new Map<string, string>();
  private labels = 0;
  private previousHash = GENESIS_HASH;

  /** Notes the traders an event creates (the first read, in log order). */
  learn(event: RecordedEvent): void {
    if (event.type === 'TraderProvisioned') this.add(event.data.trader_id, event.data.username);
    else if (event.type === 'TradersProvisioned') for (const t of event.data.traders) this.add(t.trader_id, t.username);
  }

  private add(traderId: string, username: string): void {
    const n = this.byId.size + 1;
    // Ids of one recognizable form ("7ea3": team), numbered as the names are.
    const team = { traderId: `7ea30000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`, username: `team-${String(n).padStart(3, '0')}` };
    this.byId.set(traderId, team);
    this.byName.set(username, team);
  }

  /** The event rewritten, and its line of the new log (canonical JSON with the new chain hash). */
  line(event: RecordedEvent): string {
    const rewritten = this.rewrite(event, '', null) as Record<string, unknown> & { seq: number; type: string; data: Record<string, unknown> };
    if (rewritten.type === 'LeaderboardFrozen') this.refreeze(rewritten);
    if (rewritten.type === 'ScheduledActionFailed') this.refail(rewritten);
    if (rewritten.type === 'ApiKeyIssued') this.relabel(rewritten.data);
    this.previousHash = chainHash(this.previousHash, rewritten as unknown as RecordedEvent);
    return canonicalJson({ ...rewritten, hash: this.previousHash });
  }

  // Every member by name, at any depth: a trader named by id or username, a key hash, a client order id.
  private rewrite(value: unknown, key: string, traderId: string | null): unknown {
    if (typeof value === 'string') {
      if (TRADER_ID_FIELDS.has(key)) return this.byId.get(value)?.traderId ?? value;
      if (USERNAME_FIELDS.has(key)) return this.byName.get(value)?.username ?? value;
      if (key === 'api_key_hash') return this.keyHash(value);
      // An issue's id is set from its new hash (relabel): its members may come in either order.
      if (key === 'key_id') return this.keyIds.get(value) ?? value;
      if (key === 'client_order_id') return createHmac('sha256', this.cidKey).update(`${traderId ?? ''}\n${value}`).digest('base64url').slice(0, 22);
      return value;
    }
    if (Array.isArray(value)) return value.map((v) => this.rewrite(v, key, traderId));
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    const owner = typeof record['trader_id'] === 'string' ? record['trader_id'] : traderId;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) out[k] = this.rewrite(v, k, owner);
    return out;
  }

  private keyHash(hash: string): string {
    let placeholder = this.keyHashes.get(hash);
    if (placeholder === undefined) {
      // Numbered in both halves: a key's id is the first half (keyIdOf), and ids must differ.
      const n = (this.keyHashes.size + 1).toString(16).padStart(32, '0');
      placeholder = n + n;
      this.keyHashes.set(hash, placeholder);
      this.keyIds.set(keyIdOf(hash), keyIdOf(placeholder));
    }
    return placeholder;
  }

  // An issued key: its id is its placeholder's, its label no team's words.
  private relabel(data: Record<string, unknown>): void {
    data['key_id'] = keyIdOf(data['api_key_hash'] as string);
    if (data['label'] !== null) data['label'] = `key ${++this.labels}`;
  }

  // Frozen standings: ranked again under the new names (ties go by username, as the leaderboard ranks
  // them), and the head hash is the new log's own at as_of_seq (the event just before the freeze).
  private refreeze(event: { seq: number; data: Record<string, unknown> }): void {
    const rows = (event.data['rows'] as { rank: number; net_pnl: number; username: string; trader_id: string }[]).slice().sort(byStanding);
    event.data['rows'] = rows.map((r, i) => ({ ...r, rank: i + 1 }));
    if (event.data['as_of_seq'] === event.seq - 1) event.data['head_hash'] = this.previousHash;
  }

  // A scheduled message to a trader the log did not have yet names them in its refusal's words.
  private refail(event: { data: Record<string, unknown> }): void {
    const m = /^target user (.*) not found$/s.exec(String(event.data['message']));
    const team = m === null ? undefined : this.byName.get(m[1] as string);
    if (team !== undefined) event.data['message'] = `target user ${team.username} not found`;
  }
}

export interface AnonymizeOptions extends LogSourceOptions {
  readonly quiet?: boolean;
}

/** Writes the anonymized log, line by line, through `write`; returns the events written. */
export async function anonymize(o: AnonymizeOptions, write: (text: string) => Promise<void>): Promise<number> {
  const anonymizer = new Anonymizer();
  const first = new VerifiedLog(o);
  const progress = new Progress('verifying', o.quiet !== true && process.stderr.isTTY === true);
  for await (const batch of first.batches()) {
    for (const event of batch) anonymizer.learn(event);
    progress.tick(first.verifier.seq & ~1023);
  }
  progress.done(first.verifier.seq);
  const writing = new Progress('anonymizing', o.quiet !== true && process.stderr.isTTY === true);
  let n = 0;
  for await (const batch of VerifiedLog.again(o, first)) {
    let text = '';
    for (const event of batch) text += anonymizer.line(event) + '\n';
    n += batch.length;
    await write(text);
    writing.tick(n & ~1023);
  }
  writing.done(n);
  return n;
}
