// A submission's duplicate check by client order id (src/server/history/order-lookups.ts) when its
// lookup goes stale before the command is built: the books held the earlier order and let go of it
// meanwhile, or the database had not yet been written as far as what the books let go of. The lookup
// is made again once the database holds that much; a writer that stays behind is a 503, never an
// order accepted with a client order id already taken, and never an internal error.
import { expect } from 'chai';
import pg from 'pg';
import { isDomainError } from '../../src/commands/errors.ts';
import { DuplicateSubmission } from '../../src/commands/duplicate-submission.ts';
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { Command, CommandBody } from '../../src/commands/types.ts';
import type { EarlierOrder } from '../../src/server/history/history.ts';
import { checkEarlier, earlierOrder, StaleLookup } from '../../src/server/history/order-lookups.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { openInstance, settle, submitLookedUp, type Instance } from './support/harness.ts';

const TRADER = '00000000-0000-4000-8000-00000000000a';
const MARKET = 'EO-USD';
let ids = 0;

function submit(clientOrderId: string | null, price = 90): CommandBody {
  ids++;
  return {
    type: 'SubmitOrder',
    trader_id: TRADER,
    market: MARKET,
    side: 'BUY',
    price,
    quantity: 1,
    ...GTC_LIMIT,
    client_order_id: clientOrderId,
    order_id: `eeeeeeee-0000-4000-8000-${String(ids).padStart(12, '0')}`,
    fill_id_seed: `seed-${ids}`,
  } as CommandBody;
}

function run(instance: Instance, body: CommandBody): Promise<ExchangeEvent> {
  return instance.service.execute((s) => ({ ...body, time: s.time }) as Command);
}

/** Submits and cancels an order: it finishes, and the books' window of two moves on by one. */
async function finishOne(instance: Instance, clientOrderId: string | null): Promise<string> {
  const body = submit(clientOrderId);
  await run(instance, body);
  const orderId = (body as { order_id: string }).order_id;
  await run(instance, { type: 'CancelOrder', trader_id: TRADER, order_id: orderId });
  return orderId;
}

/** A submission with a client order id as the routes run it. */
function submitChecked(instance: Instance, clientOrderId: string): Promise<ExchangeEvent> {
  const body = submit(clientOrderId);
  return submitLookedUp(instance.service, instance.persistence.history, TRADER, clientOrderId, (time) => ({ ...body, time }) as Command);
}

/**
 * An order with client order id 'old' finished and written; then, with the writer held (the events
 * table locked by another session), four more finish and the books let go of orders the database does
 * not hold yet. `release` lets the writer go on (once; again is nothing).
 */
async function behindTheBooks(inst: Instance, url: string): Promise<{ first: string; held: { release(): Promise<void> } }> {
  const state = inst.exchange.state;
  const first = await finishOne(inst, 'old');
  for (let i = 0; i < 3; i++) await finishOne(inst, null);
  await inst.persistence.durable(state.seq);
  const durable = state.seq;
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  await locker.query('begin');
  await locker.query('lock table events in access exclusive mode');
  let released = false;
  const held = {
    release: async () => {
      if (released) return;
      released = true;
      await locker.query('commit');
      await locker.end();
    },
  };
  // Four: a release comes as the event after a finish begins; the first lets go of an order the
  // database holds, the last of one it does not. The service acknowledges without waiting for the
  // writer, so they finish while it waits.
  try {
    for (let i = 0; i < 4; i++) await finishOne(inst, null);
    expect(state.books.orders.releasedSeq, 'the books let go of orders the database does not hold yet').to.be.above(durable);
  } catch (err) {
    await held.release();
    throw err;
  }
  return { first, held };
}

describe('PostgreSQL: a stale duplicate check by client order id', function () {
  this.timeout(30_000);
  let url = '';
  let instance: Instance | null = null;

  before(async function () {
    await requirePostgres(this);
  });
  beforeEach(async () => {
    url = await createDatabase('exchange_earlier_order');
    instance = await openInstance(url, { POSTGRES_WRITE_FLUSH_INTERVAL_MS: '5' }, {}, { recentOrders: 2 });
    await run(instance, { type: 'ProvisionTrader', username: 'eo', trader_id: TRADER, api_key_hash: 'h' });
    await run(instance, { type: 'UpsertMarket', market: { market_id: MARKET, base_asset: 'EO', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } });
  });
  afterEach(async () => {
    await instance?.close();
    instance = null;
    if (url !== '') await dropDatabase(url);
  });

  it('an order the books held when looked up, let go of before the command is built: looked up again, and the repeat is a duplicate', async () => {
    const inst = instance as Instance;
    const state = inst.exchange.state;
    const first = await finishOne(inst, 'kept');
    const lookup = (await settle(earlierOrder(state, inst.persistence.history, TRADER, 'kept'))) as EarlierOrder;
    expect(lookup.inBooks, 'the books hold it when it is looked up').to.deep.equal({ traderId: TRADER, clientOrderId: 'kept' });
    // Three more finish: the window of two lets go of the first.
    for (let i = 0; i < 3; i++) await finishOne(inst, null);
    expect(state.books.byClientId(TRADER, 'kept'), 'the books let go of it').to.equal(undefined);
    expect(() => checkEarlier(state, lookup)).to.throw(StaleLookup);
    const seq = state.seq;
    const err = await submitChecked(inst, 'kept').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DuplicateSubmission);
    expect((err as DuplicateSubmission).orderId).to.equal(first);
    expect(state.seq, 'a duplicate appends nothing').to.equal(seq);
  });

  it('a lookup older than what the books let go of waits for the writer, then finds the earlier order', async () => {
    const inst = instance as Instance;
    const { first, held } = await behindTheBooks(inst, url);
    try {
      const attempt = submitChecked(inst, 'old').then(
        () => null,
        (e: unknown) => e,
      );
      let answered = false;
      void attempt.then(() => {
        answered = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered, 'the submission waits while the writer is held').to.equal(false);
      await held.release();
      const err = await attempt;
      expect(err).to.be.instanceOf(DuplicateSubmission);
      expect((err as DuplicateSubmission).orderId).to.equal(first);
    } finally {
      await held.release();
    }
  });

  it('a writer that stays behind through every try: 503 history_unavailable, nothing appended', async () => {
    const inst = instance as Instance;
    const { held } = await behindTheBooks(inst, url);
    try {
      const seq = inst.exchange.state.seq;
      const err = await submitChecked(inst, 'old').then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDomainError(err) && err.code).to.equal('history_unavailable');
      expect(inst.exchange.state.seq, 'nothing appended').to.equal(seq);
    } finally {
      await held.release();
    }
  });
});
