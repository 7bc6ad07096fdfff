// `limit` and `before` on the paged lists (fills, open orders, the trade tape): 1..1000, default 100,
// pages newest first, `before=<next>` continuing with older items.
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';

export const PAGE_MAX = 1000;
export const PAGE_DEFAULT = 100;

export const PageQuery = {
  limit: z.string().optional().meta({ description: `items per page, 1 to ${PAGE_MAX} (default ${PAGE_DEFAULT}); 400 invalid_limit outside that` }),
  before: z.string().optional().meta({ description: 'the `next` cursor of the previous page; 400 invalid_cursor when malformed' }),
};

/** Whether the request asked for a page (either parameter given): the lists answer a plain array otherwise. */
export function wantsPage(q: { limit?: string | undefined; before?: string | undefined }): boolean {
  return q.limit !== undefined || q.before !== undefined;
}

export function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return PAGE_DEFAULT;
  if (!/^\d{1,7}$/.test(raw)) throw new DomainError('invalid_limit');
  const n = Number(raw);
  if (n < 1 || n > PAGE_MAX) throw new DomainError('invalid_limit');
  return n;
}
