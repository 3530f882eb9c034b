/**
 * EVM logs as the Ethereum JSON-RPC shows them, read from the actor events (FIP-0049) of a
 * tipset's receipts (filecoin-project/lotus `chain/types/ethtypes/eth_types.go` `EthLogFromEvent`,
 * `EthBloomSet`; `chain/index/events.go`): an event whose entries are `t1`..`t4` (32-byte topics,
 * none skipped) and `d` (the data), all raw-coded, is a log; any other event is no log but still
 * counts in the block-wide `logIndex`, as Lotus numbers every event of a tipset. A log's address is
 * the emitter's f410 address, or its masked ID when it has none.
 */
import type { CID } from 'multiformats/cid';
import { keccak256 } from '../crypto/index.js';
import type { EthIndex, EthLogRecord } from '../db/index.js';
import { Amt, type Blockstore } from '../ipld/index.js';
import { StateTree } from '../state/index.js';
import {
  Address,
  AddressProtocol,
  decodeSignedMessage,
  type Event,
  ethAddressBytesFromAddress,
  eventStruct,
  isEthAddress,
  type MessageReceipt,
  SignatureType,
  type SignedMessage,
  type TipSet,
} from '../types/index.js';
import type { ChainMessage } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ethBlockHash, ethTxHashOf } from './eth-hashes.js';

/** The raw (0x55) IPLD codec: EVM log topics and data carry it. */
const RAW_CODEC = 0x55n;
/** An Ethereum bloom filter: 2048 bits. */
export const BLOOM_BYTES = 256;
const TOPIC_KEYS = ['t1', 't2', 't3', 't4'] as const;

/**
 * Lotus `EthLogFromEvent`: the topics and data of an EVM event, or undefined for an event that is
 * no log (a non-raw entry, a topic that is not 32 bytes, a duplicate or skipped topic, two `d`).
 * Entries with other keys are skipped.
 */
export function ethLogFromEvent(event: Event): { topics: Uint8Array[]; data: Uint8Array } | undefined {
  const topics: Uint8Array[] = [];
  let found = 0;
  let data: Uint8Array | undefined;
  for (const entry of event.entries) {
    if (entry.codec !== RAW_CODEC) return undefined;
    const slot = TOPIC_KEYS.indexOf(entry.key as (typeof TOPIC_KEYS)[number]);
    if (slot >= 0) {
      if (entry.value.length !== 32 || topics[slot] !== undefined) return undefined;
      topics[slot] = entry.value;
      found++;
    } else if (entry.key === 'd') {
      if (data !== undefined) return undefined;
      data = entry.value;
    }
  }
  if (topics.length !== found) return undefined;
  return { topics, data: data ?? new Uint8Array(0) };
}

/** Lotus `EthBloomSet`: three bits from the keccak of `value`. */
export function bloomAdd(bloom: Uint8Array, value: Uint8Array): void {
  const hash = keccak256(value);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i]! << 8) | hash[i + 1]!) % (BLOOM_BYTES * 8);
    bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit % 8);
  }
}

/** The bloom of logs: each address and topic. */
export function logsBloom(logs: readonly Pick<EthLogRecord, 'address' | 'topics'>[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address);
    for (const topic of log.topics) bloomAdd(bloom, topic);
  }
  return bloom;
}

/** The events of a receipt's events AMT, in order (none for a null root). */
export function receiptEvents(store: Blockstore, receipt: MessageReceipt): Event[] {
  if (receipt.eventsRoot === null) return [];
  const amt = Amt.load(store, receipt.eventsRoot);
  return Array.from(amt.entries(), ([index]) => eventStruct.decode(amt.getBytes(index) as Uint8Array));
}

/**
 * The SignedMessage behind a chain message: delegated and secp256k1 messages are stored signed
 * under their chain CID; a BLS message stands alone (its signature is aggregated in the block).
 */
export function signedMessageOfChainMessage(store: Blockstore, message: ChainMessage): SignedMessage {
  if (message.message.from.protocol !== AddressProtocol.BLS) {
    const bytes = store.get(message.cid);
    if (bytes !== undefined) {
      try {
        return decodeSignedMessage(bytes);
      } catch {
        // An unsigned message under this CID: a BLS message sent from an ID or other address.
      }
    }
  }
  return { message: message.message, signature: { type: SignatureType.BLS, data: new Uint8Array(0) } };
}

/** An emitter's 20-byte Ethereum address: its f410 address, else its masked ID. */
function emitterAddress(tree: StateTree, emitter: bigint): Uint8Array {
  const delegated = tree.getActor(emitter)?.delegatedAddress;
  return ethAddressBytesFromAddress(delegated != null && isEthAddress(delegated) ? delegated : Address.newId(emitter));
}

/** A tipset's messages as executed: their receipts and the state after them. */
export interface ExecutedMessages {
  readonly tipSet: TipSet;
  readonly messages: readonly ChainMessage[];
  readonly receipts: readonly MessageReceipt[];
  readonly stateRoot: CID;
}

/** Every EVM log of an executed tipset, in (message, event) order with block-wide log indexes. */
export function executedLogs(store: Blockstore, executed: ExecutedMessages, chainId: number): EthLogRecord[] {
  const logs: EthLogRecord[] = [];
  const blockHash = ethBlockHash(executed.tipSet);
  let tree: StateTree | undefined;
  const addresses = new Map<bigint, Uint8Array>();
  let eventIndex = 0;
  executed.messages.forEach((message, transactionIndex) => {
    const receipt = executed.receipts[transactionIndex];
    if (receipt === undefined || receipt.eventsRoot === null) return;
    const transactionHash = ethTxHashOf(signedMessageOfChainMessage(store, message), chainId);
    for (const event of receiptEvents(store, receipt)) {
      const logIndex = eventIndex++;
      const log = ethLogFromEvent(event);
      if (log === undefined) continue;
      let address = addresses.get(event.emitter);
      if (address === undefined) {
        tree ??= StateTree.load(store, executed.stateRoot);
        address = emitterAddress(tree, event.emitter);
        addresses.set(event.emitter, address);
      }
      logs.push({
        address,
        ...log,
        logIndex,
        transactionIndex,
        transactionHash,
        blockHash,
        blockNumber: executed.tipSet.height,
      });
    }
  });
  return logs;
}

/**
 * A tipset's messages as its child executed them (the child's parent receipts and state), or
 * undefined when `child` is not a child of `tipSet`.
 */
export function executedByChild(chain: ChainStore, tipSet: TipSet, child: TipSet): ExecutedMessages | undefined {
  if (!child.parents.equals(tipSet.key)) return undefined;
  const header = child.blocks[0]!;
  return {
    tipSet,
    messages: chain.tipSetMessages(tipSet),
    receipts: chain.readReceipts(header.parentMessageReceipts),
    stateRoot: header.parentStateRoot,
  };
}

/**
 * Indexes the logs of `tipSet` as its child executed them, unless they are indexed already; false
 * when `child` is not its child. Throws when the node does not hold the tipset's messages or
 * receipts (below a snapshot's or prune window).
 */
export function indexTipSetLogs(
  chain: ChainStore,
  index: EthIndex,
  tipSet: TipSet,
  child: TipSet,
  chainId: number,
): boolean {
  const blockHash = ethBlockHash(tipSet);
  if (index.bloomOf(blockHash) !== undefined) return true;
  const executed = executedByChild(chain, tipSet, child);
  if (executed === undefined) return false;
  const logs = executedLogs(chain.blockstore, executed, chainId);
  index.putLogs(blockHash, tipSet.height, logsBloom(logs), logs);
  return true;
}
