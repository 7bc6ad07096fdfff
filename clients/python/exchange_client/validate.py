"""Arguments are checked before anything is sent (the exchange's structural rules)."""
from __future__ import annotations

import re
from typing import Any

from .errors import ExchangeError

MAX_U53 = 2**53 - 1
CLIENT_ORDER_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
SUBMIT_KEYS = {"market", "side", "price", "quantity", "client_order_id", "type", "time_in_force", "self_trade_prevention"}
CHOICES = {
    "side": ("BUY", "SELL"),
    "type": ("LIMIT", "MARKET"),
    "time_in_force": ("GTC", "IOC", "FOK", "POST_ONLY"),
    "self_trade_prevention": ("NONE", "CANCEL_TAKER", "CANCEL_MAKER", "CANCEL_BOTH"),
}


def positive_integer(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_U53:
        raise ExchangeError.invalid_argument(f"{name} must be an integer between 1 and {MAX_U53}, got {value!r}")
    return value


def market_symbol(value: Any) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= 128:
        raise ExchangeError.invalid_argument(f"market must be a non-empty string of at most 128 characters, got {value!r}")
    return value


def client_order_id(value: Any) -> str:
    if not isinstance(value, str) or not CLIENT_ORDER_ID.match(value):
        raise ExchangeError.invalid_argument(f"client_order_id must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, got {value!r}")
    return value


def check_submit(order: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(order, dict):
        raise ExchangeError.invalid_argument("the order must be a dict")
    unknown = set(order) - SUBMIT_KEYS
    if unknown:
        raise ExchangeError.invalid_argument(f"unknown order field {sorted(unknown)[0]!r}")
    market_symbol(order.get("market"))
    if order.get("side") not in CHOICES["side"]:
        raise ExchangeError.invalid_argument(f"side must be BUY or SELL, got {order.get('side')!r}")
    for name in ("type", "time_in_force", "self_trade_prevention"):
        if name in order and order[name] not in CHOICES[name]:
            raise ExchangeError.invalid_argument(f"{name} must be one of {', '.join(CHOICES[name])}, got {order[name]!r}")
    if order.get("type") == "MARKET":
        if "price" in order:
            raise ExchangeError.invalid_argument("a MARKET order has no price")
    else:
        positive_integer("price", order.get("price"))
    positive_integer("quantity", order.get("quantity"))
    if "client_order_id" in order:
        client_order_id(order["client_order_id"])
    return dict(order)


def check_ref(order_id: str | None, client_id: str | None) -> dict[str, str]:
    if (order_id is None) == (client_id is None):
        raise ExchangeError.invalid_argument("give exactly one of order_id and client_order_id")
    if order_id is not None:
        if not isinstance(order_id, str) or not 0 < len(order_id) <= 128:
            raise ExchangeError.invalid_argument(f"order_id must be a non-empty string, got {order_id!r}")
        return {"order_id": order_id}
    return {"client_order_id": client_order_id(client_id)}
