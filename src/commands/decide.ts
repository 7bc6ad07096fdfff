// decide(state, command) -> event body, or a refusal (returned by the trading commands, thrown as a
// DomainError by the others). Pure: it reads the projections and never changes them; the exchange
// sequences what it returns and applies it.
import type { EventBody } from '../events/types.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import { decidePostAdminMessage, decideProvisionTrader, decideResetTrading } from './decide-admin.ts';
import { decideDeleteMarket, decideLoadConfig, decidePatchMarket, decideSettleMarket, decideUpsertMarket } from './decide-markets.ts';
import { decideDisableTrader, decideEnableTrader, decideFreezeLeaderboard, decideProvisionTraders, decideRotateApiKey, decideRunScheduledAction, decideSetSchedule } from './decide-operators.ts';
import { decideIssueApiKey, decideRevokeApiKey } from './decide-keys.ts';
import { decideAmendOrder, decideCancelAll, decideCancelOrder, decideSubmitOrder } from './decide-orders.ts';
import type { Refusal } from './errors.ts';
import type { Command } from './types.ts';

export function decide(state: ExchangeState, command: Command): EventBody | Refusal {
  switch (command.type) {
    case 'SubmitOrder':
      return decideSubmitOrder(state, command);
    case 'AmendOrder':
      return decideAmendOrder(state, command);
    case 'CancelOrder':
      return decideCancelOrder(state, command);
    case 'CancelAllOrders':
      return decideCancelAll(state, command);
    case 'ProvisionTrader':
      return decideProvisionTrader(state, command);
    case 'ResetTrading':
      return decideResetTrading(state);
    case 'StartTrading':
      return { type: 'TradingStarted', data: {} };
    case 'StopTrading':
      return { type: 'TradingStopped', data: {} };
    case 'ProvisionTraders':
      return decideProvisionTraders(state, command);
    case 'RotateApiKey':
      return decideRotateApiKey(state, command);
    case 'DisableTrader':
      return decideDisableTrader(state, command);
    case 'EnableTrader':
      return decideEnableTrader(state, command);
    case 'SetSchedule':
      return decideSetSchedule(command);
    case 'RunScheduledAction':
      return decideRunScheduledAction(state, command, (inner) => decide(state, inner));
    case 'FreezeLeaderboard':
      return decideFreezeLeaderboard(state, command);
    case 'IssueApiKey':
      return decideIssueApiKey(state, command);
    case 'RevokeApiKey':
      return decideRevokeApiKey(state, command);
    case 'LoadConfig':
      return decideLoadConfig(state, command);
    case 'PostAdminMessage':
      return decidePostAdminMessage(state, command);
    case 'UpsertMarket':
      return decideUpsertMarket(state, command);
    case 'PatchMarket':
      return decidePatchMarket(state, command);
    case 'SettleMarket':
      return decideSettleMarket(state, command);
    case 'DeleteMarket':
      return decideDeleteMarket(state, command);
    default: {
      const unknown: never = command;
      throw new Error(`decide: unknown command ${JSON.stringify(unknown)}`);
    }
  }
}
