"""The REST API (standard library only): each call runs urllib in a worker thread, so it is async."""
from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from .errors import ExchangeError
from .records import ApiKey, Fill, IssuedKey, LeaderboardRow, Market, Portfolio, Position
from .validate import check_ref, check_submit, market_symbol, positive_integer


class RestClient:
    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    async def request(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Any:
        return await asyncio.to_thread(self._request, method, path, body, query)

    def _request(self, method: str, path: str, body: Any, query: dict[str, Any] | None) -> Any:
        url = self.base_url + path
        q = {k: v for k, v in (query or {}).items() if v is not None}
        if q:
            url += "?" + urllib.parse.urlencode(q)
        headers = {"accept": "application/json"}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                text = res.read().decode()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as err:
            text = err.read().decode()
            try:
                message = json.loads(text).get("error", text)
            except (ValueError, AttributeError):
                message = text
            raise ExchangeError(err.code, err.headers.get("x-error-code") or "http_error", message) from None
        except TimeoutError as err:
            raise ExchangeError(0, "timeout", str(err)) from None
        except urllib.error.URLError as err:
            raise ExchangeError(0, "disconnected", str(err.reason)) from None

    @staticmethod
    def _ref_path(order_id: str | None, client_order_id: str | None) -> str:
        ref = check_ref(order_id, client_order_id)
        if "order_id" in ref:
            return "/api/v1/orders/" + urllib.parse.quote(ref["order_id"], safe="")
        return "/api/v1/orders/by-client-id/" + urllib.parse.quote(ref["client_order_id"], safe="")

    async def health(self) -> Any:
        return await self.request("GET", "/health")

    async def markets(self) -> list[Market]:
        return await self.request("GET", "/api/v1/markets")

    async def user(self) -> Any:
        return await self.request("GET", "/api/v1/user")

    async def positions(self) -> list[Position]:
        return await self.request("GET", "/api/v1/positions")

    async def portfolio(self) -> Portfolio:
        return await self.request("GET", "/api/v1/portfolio")

    async def leaderboard(self) -> list[LeaderboardRow]:
        return await self.request("GET", "/api/v1/leaderboard")

    async def open_orders(self, market: str | None = None) -> Any:
        return await self.request("GET", "/api/v1/open-orders", query={"market": market})

    async def fills(self, market: str | None = None, limit: int | None = None, before: str | None = None) -> list[Fill] | dict[str, Any]:
        """Every fill (a list), or with limit or before a page {"fills": [...], "next": cursor}."""
        return await self.request("GET", "/api/v1/fills", query={"market": market, "limit": limit, "before": before})

    async def keys(self) -> list[ApiKey]:
        """The caller's API keys (any scope), never their secrets."""
        return await self.request("GET", "/api/v1/keys")

    async def create_read_key(self, label: str | None = None, expires_at: str | None = None) -> IssuedKey:
        """A read key for the caller (needs a trade key): it reads everything and trades nothing. The
        secret (api_key) is in this answer only."""
        body: dict[str, Any] = {}
        if label is not None:
            body["label"] = label
        if expires_at is not None:
            body["expires_at"] = expires_at
        return await self.request("POST", "/api/v1/keys", body=body)

    async def revoke_key(self, key_id: str) -> dict[str, ApiKey]:
        """Revokes one of the caller's keys (needs a trade key); its WebSocket sessions are closed."""
        return await self.request("DELETE", "/api/v1/keys/" + urllib.parse.quote(key_id, safe=""))

    async def submit_order(self, **order: Any) -> Any:
        return await self.request("POST", "/api/v1/orders", body=check_submit(order))

    async def get_order(self, order_id: str | None = None, client_order_id: str | None = None) -> Any:
        return await self.request("GET", self._ref_path(order_id, client_order_id))

    async def cancel_order(self, order_id: str | None = None, client_order_id: str | None = None) -> Any:
        return await self.request("DELETE", self._ref_path(order_id, client_order_id))

    async def amend_order(self, remaining: int, order_id: str | None = None, client_order_id: str | None = None) -> Any:
        path = self._ref_path(order_id, client_order_id)
        return await self.request("PATCH", path, body={"remaining": positive_integer("remaining", remaining)})

    async def cancel_all(self, market: str | None = None) -> Any:
        return await self.request("DELETE", "/api/v1/orders", query={"market": None if market is None else market_symbol(market)})

    async def trades(self, market: str, limit: int | None = None, before: str | None = None) -> Any:
        return await self.request("GET", f"/api/v1/markets/{urllib.parse.quote(market_symbol(market), safe='')}/trades", query={"limit": limit, "before": before})
