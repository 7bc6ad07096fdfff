"""A local L3 book of one market, kept from a snapshot plus deltas applied in sequence.

Orders are held by id and per price level in an insertion-ordered dict (time priority; an update keeps
its place, as the exchange keeps an amended order's priority).
"""
from __future__ import annotations

from typing import Any


class BookDesyncError(Exception):
    """A delta named an order the book does not hold: resubscribe."""


class L3Book:
    def __init__(self, market: str) -> None:
        self.market = market
        self.sequence = -1
        self.epoch: str | None = None
        self._orders: dict[str, dict[str, Any]] = {}
        self._levels: dict[str, dict[int, dict[str, dict[str, Any]]]] = {"BUY": {}, "SELL": {}}

    @property
    def synced(self) -> bool:
        return self.sequence >= 0

    def reset(self, snapshot: dict[str, Any]) -> None:
        self._orders.clear()
        self._levels = {"BUY": {}, "SELL": {}}
        for o in snapshot["bids"]:
            self._add(o)
        for o in snapshot["asks"]:
            self._add(o)
        self.sequence = snapshot["sequence"]
        if snapshot.get("epoch") is not None:
            self.epoch = snapshot["epoch"]

    def clear(self) -> None:
        self.reset({"sequence": -1, "bids": [], "asks": []})
        self.epoch = None

    def apply(self, delta: dict[str, Any]) -> str:
        """'applied', 'duplicate' (ignored) or 'gap' (nothing applied: resubscribe)."""
        seq = delta["sequence"]
        if seq <= self.sequence:
            return "duplicate"
        if self.sequence < 0 or seq != self.sequence + 1:
            return "gap"
        for e in delta["events"]:
            kind = e["kind"]
            if kind == "order_added":
                self._add(e["order"])
            elif kind == "order_updated":
                o = self._orders.get(e["order"]["order_id"])
                if o is None:
                    raise BookDesyncError(f"{self.market}: update of unknown order {e['order']['order_id']}")
                o["remaining"] = e["order"]["remaining"]
            elif kind == "order_removed":
                o = self._orders.pop(e["order_id"], None)
                if o is None:
                    raise BookDesyncError(f"{self.market}: removal of unknown order {e['order_id']}")
                level = self._levels[o["side"]][o["price"]]
                del level[e["order_id"]]
                if not level:
                    del self._levels[o["side"]][o["price"]]
        self.sequence = seq
        return "applied"

    def _add(self, o: dict[str, Any]) -> None:
        resting = {k: o[k] for k in ("order_id", "side", "price", "remaining", "created_at")}
        self._orders[o["order_id"]] = resting
        self._levels[o["side"]].setdefault(o["price"], {})[o["order_id"]] = resting

    def bids(self) -> list[dict[str, Any]]:
        return [dict(o) for p in sorted(self._levels["BUY"], reverse=True) for o in self._levels["BUY"][p].values()]

    def asks(self) -> list[dict[str, Any]]:
        return [dict(o) for p in sorted(self._levels["SELL"]) for o in self._levels["SELL"][p].values()]

    def best_bid(self) -> int | None:
        return max(self._levels["BUY"], default=None)

    def best_ask(self) -> int | None:
        return min(self._levels["SELL"], default=None)

    def __len__(self) -> int:
        return len(self._orders)
