// A submitted order makes as many fills as it matches, which is unknown when the server stamps the
// command. So the command carries one random UUID and fill n gets that UUID with its last 48 bits
// advanced by n: unique, still UUID-shaped, and a pure function of the command, so a re-run of the
// same command makes the same ids. Versions and variant bits are left as they were.

const NODE_HEX = 12;
const NODE_SPACE = 2 ** 48;

// The seed's last 12 characters as the function below writes them back: lowercase hex.
const LOWER_HEX_TAIL = /[0-9a-f]{12}$/;

export function fillId(seed: string, index: number): string {
  // Most submissions fill once: the first id is the seed itself whenever its tail is already written
  // as the arithmetic below would write it (a server's randomUUID always is).
  if (index === 0 && LOWER_HEX_TAIL.test(seed)) return seed;
  const head = seed.slice(0, seed.length - NODE_HEX);
  const node = Number.parseInt(seed.slice(-NODE_HEX), 16);
  const next = (node + index) % NODE_SPACE;
  // Joined into a flat string, not a rope (see timeText in events/time-code.ts): fill ids are sent.
  return [head, next.toString(16).padStart(NODE_HEX, '0')].join('');
}
