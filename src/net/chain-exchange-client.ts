/**
 * The client side of ChainExchange (Lotus `exchange/client.go`): sends one request to one peer
 * and checks the answer before anyone uses it — the status, `1 ≤ len ≤ Length` (fewer only with
 * Partial), the first tipset is the requested head, each tipset is the child of the next, and the
 * messages match the headers. A failed check names the peer and what was wrong.
 */
import type { CID } from 'multiformats/cid';
import { type FullBlock, TipSet, type TipSetKey } from '../types/index.js';
import {
  type BSTipSet,
  decodeExchangeResponse,
  ExchangeOptions,
  type ExchangeResponse,
  ExchangeStatus,
  encodeExchangeRequest,
  exchangeStatusName,
  MAX_REQUEST_LENGTH,
} from './chain-exchange-codec.js';
import { expandMessages } from './compacted-messages.js';
import { NetError, NetErrorCode } from './errors.js';

/** Sends request bytes to a peer and returns the raw response bytes (the host provides it). */
export type ExchangeTransport = (peer: string, request: Uint8Array) => Promise<Uint8Array>;

/** A tipset with its blocks' messages, as a messages request returns it. */
export interface FullTipSet {
  readonly tipSet: TipSet;
  readonly blocks: readonly FullBlock[];
}

function fail(peer: string, message: string): never {
  throw new NetError(NetErrorCode.ExchangeFailed, `chain exchange with ${peer}: ${message}`);
}

export class ChainExchangeClient {
  constructor(private readonly transport: ExchangeTransport) {}

  async #request(peer: string, head: readonly CID[], length: number, options: bigint): Promise<ExchangeResponse> {
    if (length < 1 || length > MAX_REQUEST_LENGTH) {
      throw new NetError(NetErrorCode.BadRequest, `request length ${length} is outside 1..${MAX_REQUEST_LENGTH}`);
    }
    const bytes = await this.transport(peer, encodeExchangeRequest({ head, length: BigInt(length), options }));
    let response: ExchangeResponse;
    try {
      response = decodeExchangeResponse(bytes);
    } catch (error) {
      throw new NetError(NetErrorCode.BadMessage, `chain exchange with ${peer}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (response.status !== ExchangeStatus.Ok && response.status !== ExchangeStatus.Partial) {
      fail(peer, `${exchangeStatusName(response.status)} (${response.status}): ${response.errorMessage}`);
    }
    const got = response.chain.length;
    if (got === 0) fail(peer, 'an empty chain');
    if (got > length) fail(peer, `${got} tipsets for a request of ${length}`);
    if (got < length && response.status !== ExchangeStatus.Partial)
      fail(peer, `${got} of ${length} tipsets without Partial status`);
    return response;
  }

  /** Headers only, newest first, from `head` back at most `length` tipsets (Lotus `GetBlocks`). */
  async getBlocks(peer: string, head: TipSetKey, length: number): Promise<TipSet[]> {
    const response = await this.#request(peer, head.cids, length, ExchangeOptions.Headers);
    const tipSets = response.chain.map((entry, i) => {
      try {
        return TipSet.fromHeaders(entry.blocks);
      } catch (error) {
        return fail(peer, `tipset ${i}: ${(error as Error).message}`);
      }
    });
    checkChain(peer, head, tipSets);
    return tipSets;
  }

  /** Messages for tipsets whose headers we hold, newest first (Lotus `GetChainMessages`). */
  async getChainMessages(peer: string, tipSets: readonly TipSet[]): Promise<FullTipSet[]> {
    const head = tipSets[0];
    if (head === undefined) return [];
    const response = await this.#request(peer, head.cids, tipSets.length, ExchangeOptions.Messages);
    return response.chain.map((entry, i) => {
      const tipSet = tipSets[i] as TipSet;
      return { tipSet, blocks: blocksOf(peer, tipSet, entry, i) };
    });
  }

  /** One tipset with its messages (Lotus `GetFullTipSet`). */
  async getFullTipSet(peer: string, key: TipSetKey): Promise<FullTipSet> {
    const response = await this.#request(peer, key.cids, 1, ExchangeOptions.Headers | ExchangeOptions.Messages);
    const entry = response.chain[0] as BSTipSet;
    let tipSet: TipSet;
    try {
      tipSet = TipSet.fromHeaders(entry.blocks);
    } catch (error) {
      return fail(peer, `tipset: ${(error as Error).message}`);
    }
    checkChain(peer, key, [tipSet]);
    return { tipSet, blocks: blocksOf(peer, tipSet, entry, 0) };
  }
}

function blocksOf(peer: string, tipSet: TipSet, entry: BSTipSet, i: number): FullBlock[] {
  if (entry.messages === null) fail(peer, `tipset ${i} (height ${tipSet.height}) came without messages`);
  try {
    return expandMessages(tipSet.blocks, entry.messages);
  } catch (error) {
    return fail(peer, `tipset ${i} (height ${tipSet.height}): ${(error as Error).message}`);
  }
}

/** The first tipset is the requested head and each one is the child of the next (Lotus `IsChildOf`). */
function checkChain(peer: string, head: TipSetKey, tipSets: readonly TipSet[]): void {
  const first = tipSets[0] as TipSet;
  if (!first.key.equals(head)) fail(peer, `the first tipset is ${first.key}, not the requested ${head}`);
  for (let i = 0; i + 1 < tipSets.length; i++) {
    const child = tipSets[i] as TipSet;
    const parent = tipSets[i + 1] as TipSet;
    if (!child.parents.equals(parent.key) || child.height <= parent.height) {
      fail(peer, `tipset at height ${child.height} is not a child of the next one (height ${parent.height})`);
    }
  }
}
