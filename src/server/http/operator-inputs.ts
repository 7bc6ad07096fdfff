// Request shapes of the operator routes (operator-routes.ts; HTTP only).
import { z } from 'zod';
import { BULK_PROVISION_MAX, FREEZE_LABEL_MAX, SCHEDULE_MAX_ENTRIES } from '../../commands/decide-operators.ts';
import { MessageLevel } from '../../commands/schemas.ts';

/**
 * A JSON array of usernames, or {"usernames": [...]}; a CSV upload reaches this schema as the array of
 * its username column (csv.ts). The count (1 to BULK_PROVISION_MAX) is checked by the route and by
 * decide, with their own codes.
 */
export const BulkUsersBody = z
  .preprocess((b) => (b !== null && typeof b === 'object' && !Array.isArray(b) && 'usernames' in b ? (b as { usernames: unknown }).usernames : b), z.array(z.string().max(1024)))
  .meta({ description: `A JSON array of up to ${BULK_PROVISION_MAX} usernames, or {"usernames": [...]}; or a text/csv upload with a username column` });

export const TraderIdParams = z.object({ trader_id: z.string().max(128).meta({ description: 'the trader id' }) });

const At = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 time, in the future', example: '2026-06-01T09:00:00Z' });
const MarketId = z.string().max(128);

export const ScheduleEntryBody = z.discriminatedUnion('action', [
  z.object({ at: At, action: z.literal('start_trading') }),
  z.object({ at: At, action: z.literal('stop_trading') }),
  z.object({ at: At, action: z.literal('enable_market'), market_id: MarketId }),
  z.object({ at: At, action: z.literal('disable_market'), market_id: MarketId }),
  z.object({ at: At, action: z.literal('settle_market'), market_id: MarketId, settlement_price: z.number(), announcement: z.string().max(4096).nullable().optional() }),
  z.object({
    at: At,
    action: z.literal('post_message'),
    level: MessageLevel,
    body: z.string().max(16384),
    title: z.string().max(256).nullable().optional(),
    market: MarketId.nullable().optional(),
    target_username: z.string().max(1024).nullable().optional(),
  }),
]);
export type ScheduleEntryBody = z.infer<typeof ScheduleEntryBody>;

export const ScheduleBody = z.object({ entries: z.array(ScheduleEntryBody).max(SCHEDULE_MAX_ENTRIES) });

// Strict: a freeze acts on an empty body, so a body meant for another route must not freeze by mistake.
export const FreezeBody = z
  .strictObject({ label: z.string().max(FREEZE_LABEL_MAX * 4).optional().meta({ description: 'e.g. "round 1"; unique; default "seq N"' }) })
  .optional()
  .transform((b) => b ?? {});

export const OfficialQuery = z.object({
  label: z.string().max(1024).optional().meta({ description: 'only the standings with this label' }),
  format: z.enum(['json', 'csv']).optional(),
});
