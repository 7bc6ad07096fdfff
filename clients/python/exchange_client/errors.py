"""Errors: the exchange's stable code, the HTTP status of that code, and the exchange's text.

Failures of the client itself use status 0 and codes of their own: ``invalid_argument`` (refused
before sending), ``timeout`` (no answer in time: the outcome is unknown, retry with the same
client_order_id), ``disconnected`` and ``not_connected``.
"""
from __future__ import annotations

from .error_codes import ERROR_STATUS


class ExchangeError(Exception):
    def __init__(self, status: int, code: str, text: str, retry_after_ms: int | None = None) -> None:
        super().__init__(f"{code}{f' ({status})' if status else ''}: {text}")
        self.status = status
        self.code = code
        self.text = text
        self.retry_after_ms = retry_after_ms

    @classmethod
    def from_code(cls, code: str, text: str, retry_after_ms: int | None = None) -> "ExchangeError":
        return cls(ERROR_STATUS.get(code, 0), code, text, retry_after_ms)

    @classmethod
    def invalid_argument(cls, text: str) -> "ExchangeError":
        return cls(0, "invalid_argument", text)
