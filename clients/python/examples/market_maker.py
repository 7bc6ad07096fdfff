"""A starter market maker on the Python client: quotes one bid and one ask around the mid of the local
L3 book, skewed against its inventory (long: both quotes move down), requotes when the mid moves or a
quote fills, and cancels everything on exit (Ctrl-C).

    EXCHANGE_API_KEY=exch_... /usr/bin/python3 clients/python/examples/market_maker.py

Settings (environment): EXCHANGE_URL (http://127.0.0.1:8080), MARKET (SOL-USD), SPREAD_TICKS (2),
SIZE (5), SKEW_TICKS_PER_UNIT (0.1), MAX_POSITION (200).
"""
from __future__ import annotations

import asyncio
import math
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))  # run from a checkout without installing

from exchange_client import ExchangeError, ExchangeSocket, RestClient  # noqa: E402

BASE = os.environ.get("EXCHANGE_URL", "http://127.0.0.1:8080")
API_KEY = os.environ.get("EXCHANGE_API_KEY")
MARKET = os.environ.get("MARKET", "SOL-USD")
SPREAD_TICKS = float(os.environ.get("SPREAD_TICKS", 2))
SIZE = int(os.environ.get("SIZE", 5))
SKEW = float(os.environ.get("SKEW_TICKS_PER_UNIT", 0.1))
MAX_POSITION = int(os.environ.get("MAX_POSITION", 200))


class MarketMaker:
    def __init__(self, rest: RestClient, socket: ExchangeSocket, market: dict) -> None:
        self.rest, self.socket, self.market = rest, socket, market
        self.tick = market["tick_size"]
        self.position = 0
        self.quotes: dict[str, str | None] = {"BUY": None, "SELL": None}
        self.quoted_mid: float | None = None
        self.stale = True
        self.lock = asyncio.Lock()
        socket.on("fill", self.on_fill)
        socket.on("order_state", self.on_order_state)
        socket.on("admin_message", lambda m: print(f"[{m['message']['level']}] {m['message']['body']}"))

    def on_fill(self, message: dict) -> None:
        if message["fill"]["market"] == MARKET:
            self.stale, self.quoted_mid = True, None

    def on_order_state(self, message: dict) -> None:
        order = message["order"]
        if message["status"] != "open" and self.quotes.get(order["side"]) == order["id"]:
            self.quotes[order["side"]] = None

    def mid(self) -> float | None:
        book = self.socket.books[MARKET]
        bid, ask = book.best_bid(), book.best_ask()
        if bid is not None and ask is not None:
            return (bid + ask) / 2
        return bid if bid is not None else ask if ask is not None else self.market.get("reference_price")

    async def requote(self) -> None:
        if self.lock.locked() or not self.socket.books[MARKET].synced:
            return
        async with self.lock:
            mid = self.mid()
            if mid is None or (self.quoted_mid is not None and abs(mid - self.quoted_mid) < self.tick):
                return
            try:
                if self.stale:
                    self.stale = False
                    positions = await self.rest.positions()
                    self.position = next((p["net_quantity"] for p in positions if p["market"] == MARKET), 0)
                center = mid - self.position * SKEW * self.tick  # long: shade both quotes down
                prices = {"BUY": math.floor((center - SPREAD_TICKS * self.tick) / self.tick) * self.tick,
                          "SELL": math.ceil((center + SPREAD_TICKS * self.tick) / self.tick) * self.tick}
                for side, price in prices.items():
                    old, self.quotes[side] = self.quotes[side], None
                    if old is not None:
                        try:
                            await self.socket.cancel_order(order_id=old)
                        except ExchangeError:
                            pass  # filled meanwhile
                    room = MAX_POSITION - self.position if side == "BUY" else MAX_POSITION + self.position
                    quantity = min(SIZE, room)
                    if quantity >= 1 and price >= self.tick:
                        ack = await self.socket.submit_order(market=MARKET, side=side, price=int(price), quantity=quantity, time_in_force="POST_ONLY")
                        if ack["resting"]:
                            self.quotes[side] = ack["order"]["id"]
                self.quoted_mid = mid
                print(f"mid {mid} position {self.position} quotes {prices['BUY']} / {prices['SELL']}")
            except ExchangeError as err:
                print(f"requote: {err.code}: {err.text}", file=sys.stderr)
                self.quoted_mid = None


async def main() -> None:
    if API_KEY is None:
        sys.exit("set EXCHANGE_API_KEY (npm run demo prints one for the trader \"you\")")
    rest = RestClient(BASE, API_KEY)
    market = next((m for m in await rest.markets() if m["market_id"] == MARKET), None)
    if market is None:
        sys.exit(f"no market {MARKET}")
    socket = ExchangeSocket(BASE.replace("http", "ws", 1) + "/ws", api_key=API_KEY, markets=[MARKET])
    bot = MarketMaker(rest, socket, market)
    socket.on("book", lambda book, delta: asyncio.ensure_future(bot.requote()))
    await socket.connect()
    print(f"quoting {MARKET} around the mid (Ctrl-C cancels and exits)")
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    while not stop.is_set():
        await bot.requote()
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except asyncio.TimeoutError:
            pass
    try:
        ack = await socket.cancel_all(MARKET)
        print(f"canceled {len(ack['canceled'])} orders")
    except ExchangeError:
        await rest.cancel_all(MARKET)  # the socket may be down: REST cancels too
    await socket.close()


if __name__ == "__main__":
    asyncio.run(main())
