// The settings of the history's own pool (postgres-history.ts), each a `-c` option of its sessions.
//
// enable_sort off: the history tables grow faster than autovacuum analyzes them, and without statistics
// the planner took a trader's newest 100 fills by reading all of them and sorting (50 ms at 17,000
// fills, against 0.5 ms by the index; docs/persistence.md, "History"). Every page is read in the order
// of an index; an order looked up by id or client order id still sorts its few rows by finished_seq.
//
// jit off: a sort the planner cannot avoid is then costed at 10^10, past every JIT threshold, so each
// such lookup compiled itself first: GET /orders/{id} of a finished order and a "maybe" of the client
// order id filter took 75-270 ms, nearly all of it LLVM's (EXPLAIN ANALYZE: JIT 227 ms, execution
// 0.1 ms). The history's reads are small and indexed; compiling never pays for itself here.
export const HISTORY_SESSION_OPTIONS = '-c enable_sort=off -c jit=off';
