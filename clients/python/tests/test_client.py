"""The Python client against a real server (started by test/clients/python-client.spec.ts, which sets
EXCHANGE_URL and EXCHANGE_ADMIN_TOKEN): the local books equal the server's after a random session across
three markets with the connection killed twice; malformed arguments are refused before sending; the
exchange's errors arrive with status, code and text; fees and keys with scopes (competition-rules.md)."""
from __future__ import annotations

import asyncio
import json
import os
import random
import unittest
import urllib.request

import websockets

from exchange_client import ExchangeError, ExchangeSocket, RestClient

BASE = os.environ.get("EXCHANGE_URL", "http://127.0.0.1:8080")
WS = BASE.replace("http", "ws", 1) + "/ws"
ADMIN = os.environ.get("EXCHANGE_ADMIN_TOKEN", "")
MARKETS = ["PYA-USD", "PYB-USD", "PYC-USD"]


def admin(method: str, path: str, body: object) -> dict:
    req = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), method=method,
                                 headers={"authorization": f"Bearer {ADMIN}", "content-type": "application/json"})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read().decode())


def setUpModule() -> None:
    global KEYS
    for m in MARKETS:
        base, quote = m.split("-")
        admin("POST", "/api/v1/admin/markets", {"market_id": m, "base_asset": base, "quote_asset": quote, "tick_size": 1,
                                                 "min_order_quantity": 1, "reference_price": None, "enabled": True})
    KEYS = [admin("POST", "/api/v1/admin/users", {"username": f"py{i}"})["profile"]["api_key"] for i in range(4)]


async def server_snapshot(market: str) -> dict:
    async with websockets.connect(WS, max_size=None) as ws:
        await ws.send(json.dumps({"op": "subscribe", "channel": "l3", "market": market}))
        async for text in ws:
            m = json.loads(text)
            if m.get("type") == "snapshot" and m["market"] == market:
                return m
    raise AssertionError("no snapshot")


async def until(condition, what: str, timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


class BookSync(unittest.IsolatedAsyncioTestCase):
    async def test_books_equal_the_server_after_a_random_session_with_two_kills(self) -> None:
        observer = await ExchangeSocket(WS, markets=MARKETS, initial_delay=0.02, max_delay=0.2).connect()
        traders = [await ExchangeSocket(WS, api_key=k).connect() for k in KEYS]
        rng = random.Random(1313)
        resting: list[tuple[ExchangeSocket, str, int]] = []

        async def one() -> None:
            t = rng.choice(traders)
            r = rng.random()
            try:
                if r < 0.62 or not resting:
                    market = rng.choice(MARKETS)
                    side = rng.choice(["BUY", "SELL"])
                    if rng.random() < 0.05:
                        ack = await t.submit_order(market=market, side=side, type="MARKET", quantity=rng.randint(1, 3))
                    else:
                        ack = await t.submit_order(market=market, side=side, price=rng.randint(95, 105), quantity=rng.randint(1, 5))
                    if ack["resting"]:
                        resting.append((t, ack["order"]["id"], ack["order"]["remaining"]))
                else:
                    k = rng.randrange(len(resting))
                    owner, order_id, remaining = resting[k]
                    if r < 0.85 or remaining < 2:
                        resting.pop(k)
                        await owner.cancel_order(order_id=order_id)
                    else:
                        resting[k] = (owner, order_id, remaining - 1)
                        await owner.amend_order(remaining - 1, order_id=order_id)
            except ExchangeError as err:
                if err.status == 0:
                    raise

        commands = 2000
        for done in range(0, commands, 25):
            await asyncio.gather(*(one() for _ in range(25)))
            if done + 25 in (700, 1400):
                await observer.drop_connection()
        for market in MARKETS:
            snap = await server_snapshot(market)
            book = observer.books[market]
            await until(lambda: observer.is_connected and book.sequence == snap["sequence"], f"{market} at {snap['sequence']}")
            self.assertGreater(snap["sequence"], 200)
            self.assertEqual(book.bids(), snap["bids"])
            self.assertEqual(book.asks(), snap["asks"])
        open_orders = {}
        for k in KEYS:
            for o in await RestClient(BASE, k).open_orders():
                open_orders[o["id"]] = o["remaining"]
        local = {o["order_id"]: o["remaining"] for m in MARKETS for o in observer.books[m].bids() + observer.books[m].asks()}
        self.assertEqual(local, open_orders)
        self.assertEqual(observer.stats["reconnects"], 2)
        for s in [observer, *traders]:
            await s.close()


class Arguments(unittest.IsolatedAsyncioTestCase):
    async def test_malformed_arguments_are_refused_before_sending(self) -> None:
        sock = await ExchangeSocket(WS, api_key=KEYS[0]).connect()
        sent = []
        original = sock._ws.send

        async def counting(data: str) -> None:
            sent.append(data)
            await original(data)

        sock._ws.send = counting
        rest = RestClient(BASE, KEYS[0])
        bad = [
            lambda: sock.submit_order(market="PYA-USD", side="BUY", price=1.5, quantity=1),
            lambda: sock.submit_order(market="PYA-USD", side="BUY", price=100, quantity=0),
            lambda: sock.submit_order(market="PYA-USD", side="buy", price=100, quantity=1),
            lambda: sock.submit_order(market="", side="BUY", price=100, quantity=1),
            lambda: sock.submit_order(market="PYA-USD", side="BUY", quantity=1),
            lambda: sock.submit_order(market="PYA-USD", side="BUY", type="MARKET", price=100, quantity=1),
            lambda: sock.submit_order(market="PYA-USD", side="BUY", price=100, quantity=1, qty=2),
            lambda: sock.submit_order(market="PYA-USD", side="BUY", price=100, quantity=1, client_order_id="no spaces!"),
            lambda: sock.submit_order(market="PYA-USD", side="BUY", price=True, quantity=1),
            lambda: sock.cancel_order(order_id="x", client_order_id="y"),
            lambda: sock.cancel_order(),
            lambda: sock.amend_order(0, order_id="x"),
            lambda: rest.submit_order(market="PYA-USD", side="SELL", price=100, quantity=-1),
        ]
        for call in bad:
            with self.assertRaises(ExchangeError) as caught:
                await call()
            self.assertEqual((caught.exception.code, caught.exception.status), ("invalid_argument", 0))
        self.assertEqual(sent, [])
        await sock.close()

    async def test_exchange_errors_carry_status_code_and_text(self) -> None:
        sock = await ExchangeSocket(WS, api_key=KEYS[1]).connect()
        rest = RestClient(BASE, KEYS[1])
        cases = [
            (lambda: sock.submit_order(market="ZZZ-USD", side="BUY", price=100, quantity=1), 404, "market_not_configured", "market ZZZ-USD is not configured"),
            (lambda: rest.submit_order(market="ZZZ-USD", side="BUY", price=100, quantity=1), 404, "market_not_configured", "market ZZZ-USD is not configured"),
            (lambda: sock.cancel_order(order_id="00000000-0000-4000-8000-000000000000"), 404, "order_not_found", "order 00000000-0000-4000-8000-000000000000 not found"),
            (lambda: rest.cancel_order(order_id="00000000-0000-4000-8000-000000000000"), 404, "order_not_found", "order 00000000-0000-4000-8000-000000000000 not found"),
            (lambda: RestClient(BASE, "exch_00000000000000000000000000000000").open_orders(), 401, "invalid_api_key", "invalid API key"),
        ]
        for call, status, code, text in cases:
            with self.assertRaises(ExchangeError) as caught:
                await call()
            self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.text), (status, code, text))
        with self.assertRaises(ExchangeError) as refused:
            await ExchangeSocket(WS, api_key="exch_00000000000000000000000000000000").connect()
        self.assertEqual((refused.exception.status, refused.exception.code), (401, "invalid_api_key"))
        await sock.close()


class RulesAndKeys(unittest.IsolatedAsyncioTestCase):
    async def test_fees_on_fills_and_positions_a_read_key_that_reads_and_cannot_trade(self) -> None:
        admin("POST", "/api/v1/admin/markets", {"market_id": "PYF-USD", "base_asset": "PYF", "quote_asset": "USD", "tick_size": 1,
                                                 "min_order_quantity": 1, "reference_price": 100, "enabled": True,
                                                 "maker_fee_bps": -2, "taker_fee_bps": 5, "max_open_orders": 3})
        maker, taker = RestClient(BASE, KEYS[2]), RestClient(BASE, KEYS[3])
        market = next(m for m in await maker.markets() if m["market_id"] == "PYF-USD")
        self.assertEqual((market["maker_fee_bps"], market["taker_fee_bps"], market["position_limit"], market["max_open_orders"]), (-2, 5, 1000, 3))
        await maker.submit_order(market="PYF-USD", side="SELL", price=100, quantity=10)
        ack = await taker.submit_order(market="PYF-USD", side="BUY", price=100, quantity=10)
        self.assertEqual([(f["fee"], f["liquidity"]) for f in ack["fills"]], [(0.5, "taker")])
        mine = [f for f in await maker.fills(market="PYF-USD")]
        self.assertEqual([(f["fee"], f["liquidity"]) for f in mine], [(-0.2, "maker")])
        position = next(p for p in await maker.positions() if p["market"] == "PYF-USD")
        self.assertEqual((position["fees"], position["realized_pnl"]), (-0.2, 0.2))

        issued = await maker.create_read_key(label="notebook")
        self.assertEqual((issued["key"]["scope"], issued["key"]["label"], issued["key"]["primary"]), ("read", "notebook", False))
        reader = RestClient(BASE, issued["api_key"])
        self.assertEqual([k["scope"] for k in await reader.keys()], ["trade", "read"])
        with self.assertRaises(ExchangeError) as refused:
            await reader.submit_order(market="PYF-USD", side="BUY", price=90, quantity=1)
        self.assertEqual((refused.exception.status, refused.exception.code, refused.exception.text), (403, "insufficient_scope", "key may only read"))
        sock = await ExchangeSocket(WS, api_key=issued["api_key"]).connect()
        with self.assertRaises(ExchangeError) as rejected:
            await sock.submit_order(market="PYF-USD", side="BUY", price=90, quantity=1)
        self.assertEqual(rejected.exception.code, "insufficient_scope")
        await sock.close()
        await maker.revoke_key(issued["key"]["key_id"])
        with self.assertRaises(ExchangeError) as gone:
            await reader.positions()
        self.assertEqual((gone.exception.status, gone.exception.code), (401, "invalid_api_key"))


if __name__ == "__main__":
    unittest.main()
