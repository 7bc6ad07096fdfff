// Starts a practice exchange (docs/practice.md): an ordinary exchange, in memory, whose other traders
// are a recording. The recording is verified in full first (recording.ts), and what comes before the
// played part is folded in as the exchange's recovery; then the server listens with a simulated clock
// (src/server/practice/simulated-clock.ts), the team's trader gets its key (a new trader, or a recorded
// trader's seat), and the player (src/server/practice/practice-player.ts) submits the recorded commands
// again through the service. The CLI (cli.ts) prints what this returns.
import { randomBytes } from 'node:crypto';
import { normalizeUsername } from '../src/commands/decide-admin.ts';
import { isDomainError } from '../src/commands/errors.ts';
import { Exchange } from '../src/commands/exchange.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { formatMicros, hashApiKey, newApiKey, parseMicros } from '../src/server/clock.ts';
import { ConfigError, loadConfig } from '../src/server/config.ts';
import { createLogger, type LogLevel } from '../src/server/logger.ts';
import { InMemoryPersistence } from '../src/server/persistence/in-memory.ts';
import type { PracticeControl, PracticeStatus, Speed } from '../src/server/practice/practice-control.ts';
import { PracticePlayer } from '../src/server/practice/practice-player.ts';
import type { PracticeReport } from '../src/server/practice/practice-report.ts';
import type { Seat } from '../src/server/practice/recorded-command.ts';
import { SimulatedClock } from '../src/server/practice/simulated-clock.ts';
import type { LogSourceOptions } from '../replay/verified-log.ts';
import { SourceUnavailable } from '../replay/log-source.ts';
import { playedEvents, scanRecording, type PlayedPart, type RecordingScan } from './recording.ts';

/** Bad arguments, or arguments the recording makes impossible (an unknown seat): exit 2. */
export class PracticeUsageError extends Error {}

export interface PracticeOptions extends LogSourceOptions {
  readonly part: PlayedPart;
  readonly speed: Speed;
  /** A new trader of this name (default "practice"), unless `seat` names a recorded trader to take over. */
  readonly trader?: string | undefined;
  readonly seat?: string | undefined;
  /** host:port (default 127.0.0.1:8080; port 0 picks one). */
  readonly bind: string;
  /** Start held: the play begins at POST /api/v1/practice/resume. */
  readonly paused?: boolean;
  /** The environment the exchange's settings come from (default process.env): limits, tokens, logging. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly quiet?: boolean;
}

/** The first line a practice exchange prints on stdout (docs/practice.md). */
export interface ReadyLine {
  readonly practice: 'ready';
  readonly url: string;
  readonly api_key: string;
  readonly trader_id: string;
  readonly username: string;
  readonly admin_token: string;
  readonly recording: { readonly events: number; readonly from: string; readonly until: string };
}

export interface Practice {
  readonly ready: ReadyLine;
  readonly server: RunningServer;
  readonly player: PracticePlayer;
  /** Resolves with the report once the recording has played to its end. */
  readonly finished: Promise<PracticeReport>;
  close(): Promise<void>;
}

/** The routes' view of the play: the player once there is one (the server listens a moment before). */
class Steering implements PracticeControl {
  player: PracticePlayer | null = null;
  private readonly clock: SimulatedClock;

  constructor(clock: SimulatedClock) {
    this.clock = clock;
  }

  status(): PracticeStatus {
    return this.player?.status() ?? { state: 'paused', speed: this.clock.speed, simulated_time: this.clock.now(), commands_replayed: 0, commands_total: 0, diverged: 0 };
  }

  pause(): void {
    this.player?.pause();
  }

  resume(): void {
    this.player?.resume();
  }

  setSpeed(speed: Speed): void {
    this.player?.setSpeed(speed);
  }
}

/** In memory; recovering it folds the recording up to the played part, verifying the whole source. */
class RecordingPersistence extends InMemoryPersistence {
  scan: RecordingScan | null = null;
  private readonly read: (exchange: Exchange) => Promise<RecordingScan>;

  constructor(read: (exchange: Exchange) => Promise<RecordingScan>) {
    super();
    this.read = read;
  }

  override async recover(exchange: Exchange): Promise<void> {
    await super.recover(exchange);
    this.scan = await this.read(exchange);
  }
}

function exchangeEnv(o: PracticeOptions): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...(o.env ?? process.env) };
  // An ordinary exchange in memory with its WebSocket gateway on the matching thread (one team, one
  // process: no fan-out child to feed), never a member of a cluster.
  for (const name of ['ROLE', 'LEADER_URL', 'METRICS_BIND_ADDR']) delete env[name];
  const bind = o.bind.startsWith(':') ? `127.0.0.1${o.bind}` : o.bind;
  return { ...env, BIND_ADDR: bind, STORAGE_BACKEND: 'in_memory', WS_FANOUT: 'inline', ADMIN_API_TOKEN: env['ADMIN_API_TOKEN'] ?? `practice-${randomBytes(16).toString('hex')}`, LOG_LEVEL: env['LOG_LEVEL'] ?? 'warn' };
}

export async function startPractice(o: PracticeOptions): Promise<Practice> {
  let config;
  try {
    config = loadConfig(exchangeEnv(o));
  } catch (err) {
    if (err instanceof ConfigError) throw new PracticeUsageError(err.message);
    throw err;
  }
  const seatName = o.seat === undefined ? null : usernameArg('--seat', o.seat);
  const traderName = seatName !== null ? null : usernameArg('--trader', o.trader ?? 'practice');
  const logger = createLogger(config.logLevel as LogLevel, 'stderr');
  const recorded = new Exchange({ deltaRing: 0 });
  const persistence = new RecordingPersistence(async (exchange) => {
    const scan = await scanRecording({ ...o, seat: seatName }, (event: RecordedEvent) => {
      // The practice exchange's log starts as the recording's: its first events are the recorded ones.
      exchange.log.append(event as ExchangeEvent);
      exchange.fold(event);
      recorded.fold(event);
    });
    // Refused here, in the exchange's recovery, so that nothing is ever served for them.
    if (scan.events === 0) throw new SourceUnavailable('the recording holds no events: nothing to practise against');
    if (seatName !== null && scan.seatId === null) throw new PracticeUsageError(`--seat ${JSON.stringify(seatName)}: the recording has no trader of that name by the end of the played part`);
    if (traderName !== null && scan.traders.has(traderName)) throw new PracticeUsageError(`--trader ${JSON.stringify(traderName)} is a trader of the recording: choose another name, or take its place with --seat ${traderName}`);
    return scan;
  });
  const clock = new SimulatedClock(0);
  const steering = new Steering(clock);
  const server = await startServer(config, logger, { clock, persistence, runSchedule: false, practice: steering });
  try {
    const scan = persistence.scan as RecordingScan;
    // Simulated time starts at the played part's start, and stays there until the first recorded command
    // of it has played: the team's trader, provisioned now, is stamped no later than that command.
    clock.advanceTo(scan.from);
    clock.limitTo(parseMicros(scan.from));
    const service = server.context.service;
    const apiKey = newApiKey();
    let you: { trader_id: string; username: string };
    let seat: Seat | null = null;
    if (seatName !== null) {
      const seatId = scan.seatId as string;
      seat = { traderId: seatId, apiKeyHash: hashApiKey(apiKey) };
      you = { trader_id: seatId, username: seatName };
      // A seat the recording holds at the start of the played part gets a new key now; one it provisions
      // later gets the key when the recording provisions it (recorded-command.ts).
      if (service.state.traders.get(seatId) !== undefined) await service.execute((s) => ({ type: 'RotateApiKey', time: s.time, trader_id: seatId, api_key_hash: hashApiKey(apiKey) }));
    } else {
      const username = traderName as string;
      const event = await service.execute((s) => ({ type: 'ProvisionTrader', time: s.time, username, trader_id: s.uuid(), api_key_hash: hashApiKey(apiKey) }));
      if (event.type !== 'TraderProvisioned') throw new Error(`practice: provisioning gave ${event.type}`);
      you = { trader_id: event.data.trader_id, username: event.data.username };
    }
    const player = new PracticePlayer({
      service,
      clock,
      history: persistence.history,
      recording: playedEvents(o, scan),
      total: scan.commands,
      speed: o.speed,
      seat,
      recorded,
      you: you.trader_id,
    });
    steering.player = player;
    const ready: ReadyLine = {
      practice: 'ready',
      url: server.url,
      api_key: apiKey,
      trader_id: you.trader_id,
      username: you.username,
      admin_token: config.adminToken,
      recording: { events: scan.events, from: scan.from, until: scan.until },
    };
    player.start(o.paused === true);
    return { ready, server, player, finished: player.finished, close: () => server.close() };
  } catch (err) {
    await server.close();
    if (isDomainError(err)) throw new PracticeUsageError(err.message);
    throw err;
  }
}

function usernameArg(option: string, raw: string): string {
  try {
    return normalizeUsername(raw);
  } catch (err) {
    if (isDomainError(err)) throw new PracticeUsageError(`${option}: ${err.message}`);
    throw err;
  }
}

/** An RFC 3339 time in the clock's form (microseconds, UTC), or a usage error naming the option. */
export function timeArg(option: string, raw: string): string {
  const micros = parseMicros(raw);
  if (!Number.isFinite(micros)) throw new PracticeUsageError(`${option} must be an RFC 3339 time`);
  return formatMicros(micros);
}
