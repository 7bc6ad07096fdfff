// The SDK's generated files match what the server produces now (run `npm run clients:generate` after
// changing a route or an error code), and its hand-written WebSocket frame types are the server's own
// (the zod schemas the AsyncAPI document is generated from): a drift fails the type check.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { generatedFiles } from '../../clients/typescript/scripts/generate.ts';
import type * as Sdk from '../../clients/typescript/src/index.ts';
import type { ServerMessageOf } from '../../src/server/ws/server-messages.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Covers<Sdk, Server> = [Server] extends [Sdk] ? true : false;
// Each line fails `tsc --noEmit` (npm test) if the SDK's frame type and the server's schema differ.
export const FRAME_TYPES_MATCH: readonly true[] = [
  true satisfies Same<Sdk.Authenticated, ServerMessageOf<'authenticated'>>,
  true satisfies Same<Sdk.Snapshot, ServerMessageOf<'snapshot'>>,
  true satisfies Same<Sdk.L3Delta, ServerMessageOf<'delta'>>,
  true satisfies Same<Sdk.L3Subscribed, ServerMessageOf<'l3_subscribed'>>,
  true satisfies Same<Sdk.TradesSubscribed, ServerMessageOf<'trades_subscribed'>>,
  // market is null for channels without one (standings): the SDK accepts every frame the server sends.
  true satisfies Covers<Sdk.Unsubscribed, ServerMessageOf<'unsubscribed'>>,
  true satisfies Same<Sdk.TradeMessage, ServerMessageOf<'trade'>>,
  true satisfies Covers<Sdk.ResyncRequired, ServerMessageOf<'resync_required'>>,
  true satisfies Same<Sdk.SubmitAck, ServerMessageOf<'submit_ack'>>,
  true satisfies Same<Sdk.OrderAck, ServerMessageOf<'order_ack'>>,
  true satisfies Same<Sdk.CancelAllAck, ServerMessageOf<'cancel_all_ack'>>,
  true satisfies Same<Omit<Sdk.Reject, 'code'>, Omit<ServerMessageOf<'reject'>, 'code'>>,
  true satisfies Same<Omit<Sdk.ErrorFrame, 'code'>, Omit<ServerMessageOf<'error'>, 'code'>>,
  true satisfies Same<Sdk.Pong, ServerMessageOf<'pong'>>,
  true satisfies Same<Sdk.FillMessage, ServerMessageOf<'fill'>>,
  true satisfies Same<Sdk.OrderState, ServerMessageOf<'order_state'>>,
  true satisfies Same<Sdk.AdminMessage, ServerMessageOf<'admin_message'>>,
  true satisfies Same<Sdk.Heartbeat, ServerMessageOf<'heartbeat'>>,
  true satisfies Same<ServerMessageOf<'reject'>['code'], Sdk.ExchangeErrorCode>,
];

describe('TypeScript SDK generated files', () => {
  it('src/openapi.ts and src/error-codes.ts are what clients:generate produces from the server now', async () => {
    for (const [path, text] of Object.entries(await generatedFiles())) {
      const checkedIn = readFileSync(new URL(`../../clients/typescript/${path}`, import.meta.url), 'utf8');
      expect(checkedIn === text, `clients/typescript/${path} is stale: run npm run clients:generate`).to.equal(true);
    }
    expect(FRAME_TYPES_MATCH.every((x) => x)).to.equal(true);
  });
});
