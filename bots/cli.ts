// `npm run bots -- --config bots.json --url http://exchange:8080 [--admin-token T] [--seed N]`: the house
// liquidity bots against any exchange. Runs until SIGINT or SIGTERM, then stops the bots, cancels every
// order they have resting and exits 0. Exit codes: 0 stopped cleanly, 1 the exchange refused or could
// not be reached (at start) or the cancels failed, 2 a bad command line or configuration.
import { parseArgs } from 'node:util';
import { BotsConfigError, loadBotsConfig } from './config.ts';
import { BotsStartError, startBots } from './house-bots.ts';

const HELP = `bots: the house liquidity bots (market makers and takers) against an exchange

usage: npm run bots -- --config bots.json [--url URL] [--admin-token TOKEN] [--seed N]

  --config PATH        the bots configuration (JSON; see docs/operations.md and bots/example.json)
  --url URL            the exchange's base URL (default: the config's url)
  --admin-token TOKEN  provisions the bots that have no api_key (also BOTS_ADMIN_TOKEN, or the config's admin_token)
  --seed N             overrides the config's seed

Runs until SIGINT or SIGTERM; then cancels every order the bots left resting and exits 0.
exit codes: 0 stopped cleanly, 1 the exchange refused or was unreachable, 2 bad usage or configuration`;

function say(line: string): void {
  process.stderr.write(`bots: ${line}\n`);
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, url: { type: 'string' }, 'admin-token': { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    say(`${err instanceof Error ? err.message : String(err)}\n\n${HELP}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (values.config === undefined) {
    say(`--config is required\n\n${HELP}`);
    return 2;
  }
  let config;
  try {
    config = await loadBotsConfig(values.config);
  } catch (err) {
    if (err instanceof BotsConfigError) {
      say(err.message);
      return 2;
    }
    throw err;
  }
  if (values.seed !== undefined) {
    const seed = Number(values.seed);
    if (!Number.isSafeInteger(seed) || seed < 0 || seed > 4_294_967_295) {
      say('--seed must be a whole number between 0 and 4294967295');
      return 2;
    }
    config = { ...config, seed };
  }
  const url = values.url ?? config.url;
  if (url === undefined || !/^https?:\/\/[^/]/.test(url)) {
    say(url === undefined ? 'give the exchange with --url http://host:port (or url in the config)' : `--url ${JSON.stringify(url)} is not an http(s) URL`);
    return 2;
  }
  const fromEnv = process.env['BOTS_ADMIN_TOKEN']?.trim();
  const adminToken = values['admin-token'] ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv) ?? config.admin_token;

  let running;
  try {
    running = await startBots({ baseUrl: url, config, adminToken });
  } catch (err) {
    if (err instanceof BotsStartError) {
      say(err.message);
      return 1;
    }
    throw err;
  }
  const makers = running.bots.filter((b) => b.role === 'maker').length;
  say(`running ${makers} makers and ${running.bots.length - makers} takers on ${config.markets.map((m) => m.market).join(', ')} against ${url} (seed ${config.seed}); SIGINT or SIGTERM stops them`);
  const bots = running;
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: stopping, canceling the bots' orders`);
      bots.stop().then(
        ({ canceled }) => {
          say(`stopped after ${bots.orders()} orders; canceled ${canceled} resting orders`);
          resolve(0);
        },
        (err: unknown) => {
          say(`stopping failed: ${err instanceof Error ? err.message : String(err)}`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(70);
  },
);
