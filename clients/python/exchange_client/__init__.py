"""Python client of the competition exchange: REST and a WebSocket client with a synced local L3 book."""
from .book import BookDesyncError, L3Book
from .error_codes import ERROR_STATUS
from .errors import ExchangeError
from .records import ApiKey, Fill, IssuedKey, LeaderboardRow, Market, Portfolio, Position
from .rest import RestClient
from .socket import ExchangeSocket

__all__ = ["ApiKey", "BookDesyncError", "ERROR_STATUS", "ExchangeError", "ExchangeSocket", "Fill", "IssuedKey", "L3Book", "LeaderboardRow", "Market", "Portfolio", "Position", "RestClient"]
__version__ = "0.1.0"
