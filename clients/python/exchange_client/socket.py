"""The WebSocket client: authenticate, subscribe to several markets' l3 books (and trades), correlate
request_ids with futures, keep one L3Book per market from snapshot plus deltas with sequence checks,
resubscribe on a gap or resync_required, reconnect with backoff and resume from the last sequence and
epoch. Trading ops pending when the connection drops fail with ``disconnected`` (outcome unknown:
retry with the same client_order_id).
"""
from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections import defaultdict
from typing import Any, Callable

import websockets

from .book import BookDesyncError, L3Book
from .errors import ExchangeError
from .validate import check_ref, check_submit, market_symbol, positive_integer

Listener = Callable[..., Any]


class ExchangeSocket:
    def __init__(self, url: str, api_key: str | None = None, markets: tuple[str, ...] | list[str] = (), trades: tuple[str, ...] | list[str] = (),
                 request_timeout: float = 10.0, reconnect: bool = True, initial_delay: float = 0.1, max_delay: float = 5.0,
                 cancel_on_disconnect: bool = False) -> None:
        self.url = url
        self.api_key = api_key
        self.books: dict[str, L3Book] = {market_symbol(m): L3Book(m) for m in markets}
        self.trade_markets = {market_symbol(m) for m in trades}
        self.request_timeout = request_timeout
        self.reconnect = reconnect
        self.initial_delay = initial_delay
        self.max_delay = max_delay
        self.cancel_on_disconnect = cancel_on_disconnect
        self.trader: dict[str, Any] | None = None
        self.stats = {"duplicates": 0, "gaps": 0, "resyncs": 0, "reconnects": 0}
        self._listeners: dict[str, list[Listener]] = defaultdict(list)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._ws: Any = None
        self._connected = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self._first: asyncio.Future[None] | None = None

    # events: ready, book(book, delta|None), resync(market, reason), fill, order_state, trade,
    # admin_message, account_resync, error(ExchangeError), disconnected
    def on(self, event: str, listener: Listener) -> "ExchangeSocket":
        self._listeners[event].append(listener)
        return self

    def _emit(self, event: str, *args: Any) -> None:
        for listener in list(self._listeners[event]):
            listener(*args)

    @property
    def is_connected(self) -> bool:
        return self._connected.is_set()

    async def connect(self) -> "ExchangeSocket":
        self._closing = False
        self._first = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run())
        await self._first
        return self

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def drop_connection(self) -> None:
        """Cuts the connection as a network failure would (the client reconnects and resumes)."""
        if self._ws is not None:
            self._ws.transport.abort()

    async def _run(self) -> None:
        attempts = 0
        while not self._closing:
            try:
                async with websockets.connect(self.url, max_size=None) as ws:
                    self._ws = ws
                    if self.api_key is not None:
                        auth: dict[str, Any] = {"op": "authenticate", "api_key": self.api_key}
                        if self.cancel_on_disconnect:
                            auth["cancel_on_disconnect"] = True
                        await ws.send(json.dumps(auth))
                    else:
                        await self._on_ready(attempts > 0 or self.stats["reconnects"] > 0)
                    attempts = 0
                    async for text in ws:
                        await self._on_frame(text)
            except ExchangeError as err:
                if self._first is not None and not self._first.done():
                    self._first.set_exception(err)
                return
            except (OSError, websockets.exceptions.WebSocketException, asyncio.IncompleteReadError):
                pass
            finally:
                self._ws = None
                was_connected = self._connected.is_set()
                self._connected.clear()
                self._fail_pending(ExchangeError(0, "disconnected", "connection closed before the answer"))
            if self._closing or not self.reconnect:
                if self._first is not None and not self._first.done():
                    self._first.set_exception(ExchangeError(0, "disconnected", "could not connect"))
                return
            self._emit("disconnected", was_connected)
            delay = min(self.max_delay, self.initial_delay * 2**attempts) * (0.5 + random.random() / 2)
            attempts += 1
            self.stats["reconnects"] += 1
            await asyncio.sleep(delay)

    def _fail_pending(self, err: ExchangeError) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
        self._pending.clear()

    async def _on_ready(self, reconnect: bool) -> None:
        self._connected.set()
        for book in self.books.values():
            await self._subscribe_book(book)
        for m in self.trade_markets:
            await self._send({"op": "subscribe", "channel": "trades", "market": m})
        if self._first is not None and not self._first.done():
            self._first.set_result(None)
        self._emit("ready", reconnect)

    async def _send(self, frame: dict[str, Any]) -> None:
        if self._ws is not None:
            await self._ws.send(json.dumps(frame))

    async def _subscribe_book(self, book: L3Book) -> None:
        frame: dict[str, Any] = {"op": "subscribe", "channel": "l3", "market": book.market}
        if book.synced and book.epoch is not None:
            frame.update(last_sequence=book.sequence, epoch=book.epoch)
        await self._send(frame)

    async def _resubscribe(self, book: L3Book, reason: str) -> None:
        self.stats["resyncs"] += 1
        book.clear()
        self._emit("resync", book.market, reason)
        if self.is_connected:
            # a subscribe to a market the connection follows gets no snapshot: leave it first
            await self._send({"op": "unsubscribe", "channel": "l3", "market": book.market})
            await self._subscribe_book(book)

    async def subscribe(self, market: str) -> L3Book:
        market_symbol(market)
        if market not in self.books:
            self.books[market] = L3Book(market)
            if self.is_connected:
                await self._subscribe_book(self.books[market])
        return self.books[market]

    async def _trade(self, frame: dict[str, Any]) -> dict[str, Any]:
        if self._ws is None or not self.is_connected:
            raise ExchangeError(0, "not_connected", "not connected")
        request_id = f"r{next(self._ids)}"
        frame["request_id"] = request_id
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = fut
        await self._ws.send(json.dumps(frame))
        try:
            return await asyncio.wait_for(fut, self.request_timeout)
        except asyncio.TimeoutError:
            raise ExchangeError(0, "timeout", f"no answer to {frame['op']} {request_id} within {self.request_timeout} s") from None
        finally:
            self._pending.pop(request_id, None)

    async def submit_order(self, **order: Any) -> dict[str, Any]:
        return await self._trade({"op": "submit_order", **check_submit(order)})

    async def cancel_order(self, order_id: str | None = None, client_order_id: str | None = None) -> dict[str, Any]:
        return await self._trade({"op": "cancel_order", **check_ref(order_id, client_order_id)})

    async def amend_order(self, remaining: int, order_id: str | None = None, client_order_id: str | None = None) -> dict[str, Any]:
        return await self._trade({"op": "amend_order", **check_ref(order_id, client_order_id), "remaining": positive_integer("remaining", remaining)})

    async def cancel_all(self, market: str | None = None) -> dict[str, Any]:
        frame: dict[str, Any] = {"op": "cancel_all"}
        if market is not None:
            frame["market"] = market_symbol(market)
        return await self._trade(frame)

    def _settle(self, request_id: str | None, frame: dict[str, Any], error: ExchangeError | None) -> bool:
        fut = self._pending.get(request_id) if request_id is not None else None
        if fut is None or fut.done():
            return False
        if error is None:
            fut.set_result(frame)
        else:
            fut.set_exception(error)
        return True

    async def _on_frame(self, text: str | bytes) -> None:
        m = json.loads(text)
        t = m.get("type")
        if t == "delta":
            book = self.books.get(m["market"])
            if book is None or not book.synced:
                return
            try:
                result = book.apply(m)
            except BookDesyncError as err:
                await self._resubscribe(book, str(err))
                return
            if result == "applied":
                self._emit("book", book, m)
            elif result == "duplicate":
                self.stats["duplicates"] += 1
            else:
                self.stats["gaps"] += 1
                await self._resubscribe(book, f"gap: expected {book.sequence + 1}, got {m['sequence']}")
        elif t in ("ack", "pong"):
            self._settle(m.get("request_id"), m, None)
        elif t == "reject":
            self._settle(m.get("request_id"), m, ExchangeError.from_code(m["code"], m["message"], m.get("retry_after_ms")))
        elif t == "snapshot":
            book = self.books.get(m["market"])
            if book is not None:
                book.reset(m)
                self._emit("book", book, None)
        elif t == "subscribed" and m.get("channel") == "l3" and not m.get("already_subscribed"):
            book = self.books.get(m["market"])
            if book is not None and book.sequence != m["last_sequence"]:
                await self._resubscribe(book, "resume from an unexpected sequence")
            elif book is not None:
                self._emit("book", book, None)
        elif t == "authenticated":
            self.trader = m
            await self._on_ready(self.stats["reconnects"] > 0)
        elif t == "resync_required":
            if m["channel"] == "account":
                self._emit("account_resync", m)
            elif m["channel"] == "trades" and m["market"] is not None:
                await self._send({"op": "subscribe", "channel": "trades", "market": m["market"]})
            elif m["market"] in self.books:
                await self._resubscribe(self.books[m["market"]], m["reason"])
        elif t == "error":
            err = ExchangeError.from_code(m["code"], m["message"])
            if self._settle(m.get("request_id"), m, err):
                return
            if not self.is_connected and m["code"] in ("invalid_api_key", "unauthenticated"):
                raise err  # a refused key is not retried
            self._emit("error", err)
        elif t in ("fill", "order_state", "trade", "admin_message"):
            self._emit(t, m)
