import { LedgerError } from '../utils/errors.js';

export const NetErrorCode = {
  /** A peer sent bytes that do not decode as the protocol's message. */
  BadMessage: 'ERR_NET_BAD_MESSAGE',
  /** A peer answered a chain-exchange request with a failure status or an inconsistent chain. */
  ExchangeFailed: 'ERR_NET_EXCHANGE_FAILED',
  /** A request that breaks the protocol's limits (length, options, size). */
  BadRequest: 'ERR_NET_BAD_REQUEST',
  /** A peer took longer than the protocol allows. */
  Timeout: 'ERR_NET_TIMEOUT',
  /** A multiaddr or peer id that cannot be parsed or dialled. */
  BadAddress: 'ERR_NET_BAD_ADDRESS',
  /** The peer identity file is unreadable or readable by others. */
  BadIdentity: 'ERR_NET_BAD_IDENTITY',
  /** A peer asked more often than its rate allows. */
  RateLimited: 'ERR_NET_RATE_LIMITED',
  /** The node knows nothing of the peer asked about. */
  UnknownPeer: 'ERR_NET_UNKNOWN_PEER',
} as const;
export type NetErrorCode = (typeof NetErrorCode)[keyof typeof NetErrorCode];

/** A network operation that failed; the message names the peer or input and what was wrong. */
export class NetError extends LedgerError {
  declare readonly code: NetErrorCode;

  constructor(code: NetErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
