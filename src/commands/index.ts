export { Exchange, type ExchangeOptions } from './exchange.ts';
export { decide } from './decide.ts';
export { DomainError, ERRORS, type ErrorCode, isDomainError, positionLimitText, rateLimitText } from './errors.ts';
export type { Command, CommandBody, CommandOf, CommandType, MarketInput, MarketPatchInput } from './types.ts';
