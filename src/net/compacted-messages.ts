/**
 * Converting between a tipset's blocks with their messages and the CompactedMessages form
 * (each message once, per-block index lists), and checking what a peer sent: include indices in
 * range, one list per block, and the rebuilt TxMeta equal to each header's `Messages`.
 */
import { txMetaCidOf } from '../chain/index.js';
import {
  type BlockHeader,
  blockCid,
  type FullBlock,
  type Message,
  messageCid,
  type SignedMessage,
  signedMessageCid,
} from '../types/index.js';
import type { CompactedMessages } from './chain-exchange-codec.js';
import { NetError, NetErrorCode } from './errors.js';

function compact<T>(
  perBlock: readonly (readonly T[])[],
  cidOf: (item: T) => { toString(): string },
): { items: T[]; includes: bigint[][] } {
  const items: T[] = [];
  const indexOf = new Map<string, number>();
  const includes = perBlock.map((messages) =>
    messages.map((message) => {
      const key = cidOf(message).toString();
      let index = indexOf.get(key);
      if (index === undefined) {
        index = items.length;
        items.push(message);
        indexOf.set(key, index);
      }
      return BigInt(index);
    }),
  );
  return { items, includes };
}

export function compactMessages(
  blocks: readonly { blsMessages: readonly Message[]; secpMessages: readonly SignedMessage[] }[],
): CompactedMessages {
  const bls = compact(
    blocks.map((block) => block.blsMessages),
    messageCid,
  );
  const secpk = compact(
    blocks.map((block) => block.secpMessages),
    signedMessageCid,
  );
  return { bls: bls.items, blsIncludes: bls.includes, secpk: secpk.items, secpkIncludes: secpk.includes };
}

function expand<T>(items: readonly T[], includes: readonly (readonly bigint[])[], block: number, what: string): T[] {
  const indices = includes[block];
  if (indices === undefined)
    throw new NetError(NetErrorCode.ExchangeFailed, `${what}: no include list for block ${block}`);
  return indices.map((index) => {
    const item = items[Number(index)];
    if (index >= BigInt(items.length) || item === undefined) {
      throw new NetError(
        NetErrorCode.ExchangeFailed,
        `${what}: block ${block} includes message ${index} of ${items.length}`,
      );
    }
    return item;
  });
}

/**
 * The full blocks of a tipset from its headers and the peer's CompactedMessages; throws when the
 * messages do not match the headers (a peer that sends another block's messages is caught here).
 */
export function expandMessages(headers: readonly BlockHeader[], messages: CompactedMessages): FullBlock[] {
  if (messages.blsIncludes.length !== headers.length || messages.secpkIncludes.length !== headers.length) {
    throw new NetError(
      NetErrorCode.ExchangeFailed,
      `messages for ${headers.length} blocks carry ${messages.blsIncludes.length} BLS and ${messages.secpkIncludes.length} secp include lists`,
    );
  }
  return headers.map((header, i) => {
    const blsMessages = expand(messages.bls, messages.blsIncludes, i, 'BlsIncludes');
    const secpkMessages = expand(messages.secpk, messages.secpkIncludes, i, 'SecpkIncludes');
    const meta = txMetaCidOf(blsMessages.map(messageCid), secpkMessages.map(signedMessageCid));
    if (!meta.equals(header.messages)) {
      throw new NetError(
        NetErrorCode.ExchangeFailed,
        `messages of block ${blockCid(header)} give TxMeta ${meta}, the header names ${header.messages}`,
      );
    }
    return { header, blsMessages, secpkMessages };
  });
}
