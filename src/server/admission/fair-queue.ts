// Commands waiting for the engine (while persistence pushes back, or while admission is held), taken
// fairly: operator commands first, in arrival order; then one command per trader in turn (round
// robin over the traders that have something waiting, each trader's own commands in arrival order).
// So a trader with a deep backlog delays another trader's command by at most one turn, never by its
// whole backlog. Each trader's queue is bounded; a full one refuses the new command at once.

class Deque<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head++;
    // Compact once the dead front is most of the array, so the deque stays O(1) amortized.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export class FairQueue<T> {
  readonly perTrader: number;
  private readonly operators = new Deque<T>();
  private readonly lanes = new Map<string, Deque<T>>();
  /** Traders with something waiting, in the order of their next turn. */
  private readonly turns = new Deque<string>();
  private count = 0;

  constructor(perTrader: number) {
    this.perTrader = perTrader;
  }

  get size(): number {
    return this.count;
  }

  /** `trader` null: an operator (or the service itself). False when that trader's queue is full. */
  push(trader: string | null, item: T): boolean {
    if (trader === null) {
      this.operators.push(item);
      this.count++;
      return true;
    }
    let lane = this.lanes.get(trader);
    if (lane === undefined) {
      lane = new Deque<T>();
      this.lanes.set(trader, lane);
      this.turns.push(trader);
    } else if (lane.size >= this.perTrader) {
      return false;
    }
    lane.push(item);
    this.count++;
    return true;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    this.count--;
    if (this.operators.size > 0) return this.operators.shift();
    const trader = this.turns.shift() as string;
    const lane = this.lanes.get(trader) as Deque<T>;
    const item = lane.shift();
    if (lane.size > 0) this.turns.push(trader);
    else this.lanes.delete(trader);
    return item;
  }
}
