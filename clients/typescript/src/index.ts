// The exchange's TypeScript SDK: REST (typed from the OpenAPI document) and a WebSocket client with a
// synced local L3 book per market. See docs/clients.md.
export { BookDesyncError, L3Book } from './book.ts';
export { ERROR_STATUS, type ExchangeErrorCode } from './error-codes.ts';
export { ExchangeError, type ClientErrorCode, type ErrorCode } from './errors.ts';
export type * from './messages.ts';
export type { components, paths } from './openapi.ts';
export { RestClient, type ApiKey, type IssuedKey, type OrderResponse, type RestClientOptions, type SubmitOrderResponse, type Success } from './rest.ts';
export { ExchangeSocket, type ExchangeSocketOptions, type SocketEvents, type WebSocketConstructor, type WebSocketLike } from './socket.ts';
