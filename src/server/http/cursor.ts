// Opaque page cursors: the position of the last item a page showed, as base64url JSON, with a check
// value so that a cursor altered by hand (or one of another list) is refused as `invalid_cursor` instead
// of silently starting somewhere else. The check is an integrity mark, not a secret: cursors name only
// positions in lists the caller may read anyway, and must stay valid across restarts.
import { createHash } from 'node:crypto';
import { DomainError } from '../../commands/errors.ts';

export type CursorKey = readonly (string | number)[];

const SALT = 'exchange-cursor-v1:';

function check(payload: string): string {
  return createHash('sha256').update(SALT + payload).digest('base64url').slice(0, 12);
}

export function encodeCursor(kind: string, key: CursorKey): string {
  const payload = Buffer.from(JSON.stringify([kind, ...key])).toString('base64url');
  return `${payload}.${check(payload)}`;
}

/** The key of a cursor of this kind whose members have these types; anything else is invalid_cursor. */
export function decodeCursor(kind: string, cursor: string, types: readonly ('string' | 'number')[]): CursorKey {
  const bad = (): never => {
    throw new DomainError('invalid_cursor');
  };
  if (cursor.length > 512) bad();
  const dot = cursor.indexOf('.');
  if (dot <= 0) bad();
  const payload = cursor.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || check(payload) !== cursor.slice(dot + 1)) bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    bad();
  }
  if (!Array.isArray(value) || value[0] !== kind || value.length !== types.length + 1) bad();
  const key = (value as unknown[]).slice(1);
  for (let i = 0; i < types.length; i++) if (typeof key[i] !== types[i]) bad();
  return key as CursorKey;
}
