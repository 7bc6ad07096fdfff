// Credentials live in this browser's localStorage only: the page never sends them anywhere but the
// service's own API, and "forget" removes them.

const TRADER_KEY = 'exchange.traderApiKey';
const ADMIN_KEY = 'exchange.adminToken';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled (private mode): the page still works for this visit
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // storage disabled: nothing is remembered
  }
}

export const credentials = {
  traderKey: (): string | null => read(TRADER_KEY),
  setTraderKey: (key: string | null): void => write(TRADER_KEY, key),
  adminToken: (): string | null => read(ADMIN_KEY),
  setAdminToken: (token: string | null): void => write(ADMIN_KEY, token),
};
