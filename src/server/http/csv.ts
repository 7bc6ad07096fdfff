// CSV in and out: bulk provisioning reads a `username` column, and leaderboards and new profiles are
// answered as CSV when asked (Accept: text/csv, or ?format=csv). Parsing and quoting are csv-parse's
// and csv-stringify's, not ours.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';
import { readBodyText, readJsonBody } from './read-json-body.ts';

export const CSV_TYPE = 'text/csv; charset=utf-8';

/** ?format=json|csv on routes that can answer as CSV. */
export const FormatQuery = z.object({ format: z.enum(['json', 'csv']).optional() });

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).toLowerCase();
}

/** ?format=csv, or an Accept header naming text/csv (and ?format=json does not overrule it). */
export function wantsCsv(req: IncomingMessage, format?: 'json' | 'csv'): boolean {
  if (format !== undefined) return format === 'csv';
  return header(req, 'accept').includes('text/csv');
}

export function sendCsv(res: ServerResponse, status: number, columns: readonly string[], records: readonly Record<string, unknown>[], filename?: string): void {
  if (res.headersSent) return;
  const rows = records.map((r) => columns.map((c) => {
    const v = r[c];
    return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }));
  res.statusCode = status;
  res.setHeader('content-type', CSV_TYPE);
  if (filename !== undefined) res.setHeader('content-disposition', `attachment; filename="${filename}"`);
  res.end(stringify([columns as string[], ...rows]));
}

/**
 * The usernames of a bulk request: a CSV upload (Content-Type text/csv) with a `username` column, other
 * columns ignored; otherwise JSON, parsed by the route's schema (an array, or {"usernames": [...]}).
 */
export async function readUsernames(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!header(req, 'content-type').startsWith('text/csv')) return readJsonBody(req, limit);
  const text = await readBodyText(req, limit);
  if (text === undefined) throw new DomainError('invalid_csv', 'malformed CSV: the body is empty; expected a header line with a username column');
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: (names: string[]) => names.map((n) => n.trim().toLowerCase()), skip_empty_lines: true, bom: true, trim: false, relax_column_count: false }) as Record<string, string>[];
  } catch (err) {
    throw new DomainError('invalid_csv', `malformed CSV: ${err instanceof Error ? err.message : String(err)}`);
  }
  const first = records[0];
  if (first === undefined) throw new DomainError('invalid_csv', 'malformed CSV: no rows after the header');
  if (!('username' in first)) throw new DomainError('invalid_csv', `malformed CSV: no username column (columns: ${Object.keys(first).join(', ')})`);
  return records.map((r) => r['username'] ?? '');
}
