"""The records the exchange answers with, as TypedDicts (docs/api.md; the OpenAPI document at
/api-doc/openapi.json has them all). The client returns the parsed JSON as it came: these name its
fields for a type checker and a reader; nothing is converted or checked at run time."""
from __future__ import annotations

from typing import Literal, TypedDict


class Market(TypedDict):
    market_id: str
    display_name: str
    base_asset: str
    quote_asset: str
    tick_size: int
    min_order_quantity: int
    reference_price: int | None
    settlement_price: int | None
    status: Literal["enabled", "disabled", "settled"]
    created_at: str
    updated_at: str
    # The market's rules (competition-rules.md), defaults included.
    maker_fee_bps: int
    taker_fee_bps: int
    position_limit: int
    max_open_orders: int | None


class Fill(TypedDict):
    fill_id: str
    market: str
    maker_order_id: str
    taker_order_id: str
    price: int
    quantity: int
    occurred_at: str
    fee: float
    """The caller's fee in the quote asset (at most four decimals); negative: a rebate received."""
    liquidity: Literal["maker", "taker"]


class Position(TypedDict):
    market: str
    net_quantity: int
    average_entry_price: float | None
    realized_pnl: float
    """After fees."""
    fees: float
    updated_at: str


class Portfolio(TypedDict):
    trader_id: str
    position_limit: int
    position_limits: dict[str, int]
    positions: list[Position]


class LeaderboardRow(TypedDict, total=False):
    rank: int
    trader_id: str
    username: str
    net_pnl: float
    realized_pnl: float
    unrealized_pnl: float
    gross_exposure: float
    disabled: bool


class ApiKey(TypedDict):
    key_id: str
    scope: Literal["trade", "read"]
    label: str | None
    created_at: str
    expires_at: str | None
    last_used_at: str | None
    primary: bool


class IssuedKey(TypedDict):
    key: ApiKey
    api_key: str
    """The secret: shown only in this answer."""
