/**
 * The serving side of ChainExchange (Lotus `exchange/server.go`): walks from the requested head
 * through its parents until it has `Length` tipsets or reaches genesis (then Partial), sending
 * headers and/or compacted messages as asked. Bad requests get BadRequest, unknown heads
 * NotFound, peers above their rate GoAway.
 */
import type { Logger } from 'pino';
import type { BlockMessages } from '../chain/index.js';
import { type BlockHeader, type TipSet, TipSetKey } from '../types/index.js';
import {
  type BSTipSet,
  decodeExchangeRequest,
  ExchangeOptions,
  type ExchangeRequest,
  type ExchangeResponse,
  ExchangeStatus,
  MAX_REQUEST_LENGTH,
} from './chain-exchange-codec.js';
import { compactMessages } from './compacted-messages.js';

/** What the server reads: the chain store provides it. */
export interface ExchangeChainSource {
  loadTipSet(key: TipSetKey): TipSet;
  blockMessages(header: BlockHeader): BlockMessages;
}

function failure(status: ExchangeStatus, errorMessage: string): ExchangeResponse {
  return { status, errorMessage, chain: [] };
}

/** Checks a decoded request against the protocol's limits; returns the failure response, if any. */
export function checkExchangeRequest(request: ExchangeRequest): ExchangeResponse | undefined {
  if (request.head.length === 0) return failure(ExchangeStatus.BadRequest, 'no cids in request');
  if (request.length === 0n) return failure(ExchangeStatus.BadRequest, 'invalid request length: 0');
  if (request.length > BigInt(MAX_REQUEST_LENGTH)) {
    return failure(
      ExchangeStatus.BadRequest,
      `request length over maximum allowed (${MAX_REQUEST_LENGTH}): ${request.length}`,
    );
  }
  const known = ExchangeOptions.Headers | ExchangeOptions.Messages;
  if ((request.options & known) === 0n) return failure(ExchangeStatus.BadRequest, 'no options set');
  return undefined;
}

/** Answers one request from the chain (the handler decodes and rate-limits before calling this). */
export function serveExchangeRequest(
  chain: ExchangeChainSource,
  request: ExchangeRequest,
  logger?: Logger,
): ExchangeResponse {
  const refused = checkExchangeRequest(request);
  if (refused !== undefined) return refused;
  const withHeaders = (request.options & ExchangeOptions.Headers) !== 0n;
  const withMessages = (request.options & ExchangeOptions.Messages) !== 0n;
  let tipSet: TipSet;
  try {
    tipSet = chain.loadTipSet(TipSetKey.fromCids(request.head));
  } catch (error) {
    return failure(ExchangeStatus.NotFound, `not found: ${(error as Error).message}`);
  }
  const result: BSTipSet[] = [];
  try {
    for (;;) {
      result.push({
        blocks: withHeaders ? tipSet.blocks : [],
        messages: withMessages ? compactMessages(tipSet.blocks.map((header) => chain.blockMessages(header))) : null,
      });
      if (BigInt(result.length) >= request.length || tipSet.height === 0n) break;
      tipSet = chain.loadTipSet(tipSet.parents);
    }
  } catch (error) {
    logger?.warn({ err: error }, 'chain exchange: cannot read the requested chain');
    return failure(ExchangeStatus.InternalError, `collecting the chain: ${(error as Error).message}`);
  }
  if (BigInt(result.length) < request.length) {
    return { status: ExchangeStatus.Partial, errorMessage: 'reached genesis', chain: result };
  }
  return { status: ExchangeStatus.Ok, errorMessage: '', chain: result };
}

/** Decodes and serves; a request that does not decode is a BadRequest. */
export function serveExchangeBytes(chain: ExchangeChainSource, bytes: Uint8Array, logger?: Logger): ExchangeResponse {
  let request: ExchangeRequest;
  try {
    request = decodeExchangeRequest(bytes);
  } catch (error) {
    return failure(ExchangeStatus.BadRequest, `decoding request: ${(error as Error).message}`);
  }
  return serveExchangeRequest(chain, request, logger);
}

export { failure as exchangeFailure };
