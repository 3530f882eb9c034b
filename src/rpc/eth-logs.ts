/**
 * eth_getLogs and the log filters' criteria, with Lotus's rules (filecoin-project/lotus
 * `node/impl/eth/events.go` `parseEthFilterSpec`, `parseBlockRange`; `node/impl/eth/utils.go`
 * `parseEthTopics`; `chain/index/events.go`): `blockHash` or a `fromBlock`/`toBlock` range of at
 * most 2880 epochs ("latest" is the head's parent, "earliest" 0, else 0x hex), one address or a
 * list, at most 4 topic positions each null, a hash or a list of hashes (OR). Logs of a tipset exist
 * once its child has executed it, so a height at or above the head has none yet. Results come from
 * the node's log index (a tipset not indexed yet is indexed on the way) in (epoch, log index) order,
 * at most 10000 of them unless they all sit in one tipset.
 */
import { ethBlockHash, indexTipSetLogs } from '../chain/index.js';
import type { EthLogQuery, EthLogRecord } from '../db/index.js';
import type { TipSet } from '../types/index.js';
import { jsonFail, readJsonObject } from '../types/index.js';
import { bytesEqual, toHex } from '../utils/bytes.js';
import type { ServedContext } from './context.js';
import { JsonRpcError, JsonRpcErrorCode } from './errors.js';
import { ethTipSets } from './eth-chain.js';
import { ethAddressSchema, ethHashSchema, readEthAddress, readEthHash, readQuantity } from './eth-codecs.js';
import type { ParamDeclaration } from './method.js';

/** Lotus `MaxFilterHeightRange` (node/config/def.go): the widest eth_getLogs range, in epochs. */
export const MAX_FILTER_HEIGHT_RANGE = 2880n;
/** Lotus `MaxFilterResults` (node/config/def.go): logs one query or filter answers at most. */
export const MAX_FILTER_RESULTS = 10_000;
/** Lotus `maxEthTopicsPerFilter`: LOG0..LOG4 carry at most four topics. */
const MAX_TOPICS = 4;

/** A block bound of a filter: the head's parent at the time (`latest`) or a height. */
type BlockBound = { readonly kind: 'latest' } | { readonly kind: 'height'; readonly height: bigint };

/** An eth_getLogs / eth_newFilter filter object, decoded (Lotus `EthFilterSpec`). */
export interface EthFilterSpec {
  readonly fromBlock: BlockBound | null;
  readonly toBlock: BlockBound | null;
  readonly blockHash: Uint8Array | null;
  readonly addresses: readonly Uint8Array[];
  /** Per topic position: the values one of which must be there, or null for any. */
  readonly topics: readonly (readonly Uint8Array[] | null)[];
}

function readBlockBound(json: unknown, path: string, name: string): BlockBound | null {
  if (json === undefined || json === null || json === '' || json === 'latest') return null;
  if (json === 'earliest') return { kind: 'height', height: 0n };
  if (typeof json !== 'string' || !json.startsWith('0x')) {
    throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `${name} is not a hex`);
  }
  return { kind: 'height', height: readQuantity(json, path) };
}

function readAddresses(json: unknown, path: string): Uint8Array[] {
  if (json === undefined || json === null) return [];
  if (Array.isArray(json)) return json.map((item, i) => readEthAddress(item, `${path}[${i}]`));
  return [readEthAddress(json, path)];
}

function readTopics(json: unknown, path: string): (Uint8Array[] | null)[] {
  if (json === undefined || json === null) return [];
  if (!Array.isArray(json)) jsonFail(path, 'an array of topics (each null, a hash or an array of hashes)', json);
  if (json.length > MAX_TOPICS) {
    throw new JsonRpcError(
      JsonRpcErrorCode.CallFailed,
      `too many topics in filter: ${json.length}, max: ${MAX_TOPICS}`,
    );
  }
  return json.map((position, i) => {
    const at = `${path}[${i}]`;
    if (position === null) return null;
    if (Array.isArray(position)) {
      return position.length === 0 ? null : position.map((topic, j) => readEthHash(topic, `${at}[${j}]`));
    }
    return [readEthHash(position, at)];
  });
}

export function readEthFilterSpec(json: unknown, path: string): EthFilterSpec {
  const object = readJsonObject(json, path);
  const blockHash =
    object.blockHash === undefined || object.blockHash === null
      ? null
      : readEthHash(object.blockHash, `${path}.blockHash`);
  const fromBlock = readBlockBound(object.fromBlock, `${path}.fromBlock`, 'FromBlock');
  const toBlock = readBlockBound(object.toBlock, `${path}.toBlock`, 'ToBlock');
  if (blockHash !== null && (object.fromBlock !== undefined || object.toBlock !== undefined)) {
    throw new JsonRpcError(JsonRpcErrorCode.CallFailed, 'must not specify block hash and from/to block');
  }
  return {
    fromBlock,
    toBlock,
    blockHash,
    addresses: readAddresses(object.address, `${path}.address`),
    topics: readTopics(object.topics, `${path}.topics`),
  };
}

const topicSchema = { oneOf: [{ type: 'null' }, ethHashSchema, { type: 'array', items: ethHashSchema }] } as const;
export const filterSpecSchema = {
  title: 'EthFilterSpec',
  type: 'object',
  properties: {
    fromBlock: { type: 'string', description: '"latest", "earliest" or a 0x hex block number' },
    toBlock: { type: 'string', description: '"latest", "earliest" or a 0x hex block number' },
    blockHash: ethHashSchema,
    address: { oneOf: [ethAddressSchema, { type: 'array', items: ethAddressSchema }] },
    topics: { type: 'array', maxItems: MAX_TOPICS, items: topicSchema },
  },
} as const;

export function filterSpecParam(name: string, description: string): ParamDeclaration<EthFilterSpec, object> {
  return { name, description, schema: filterSpecSchema, decode: readEthFilterSpec };
}

/** The log filter of eth_subscribe("logs"): only addresses and topics (Lotus `EthSubscriptionParams`). */
export function readLogCriteria(json: unknown, path: string): EthFilterSpec {
  const object = json === undefined || json === null ? {} : readJsonObject(json, path);
  return {
    fromBlock: null,
    toBlock: null,
    blockHash: null,
    addresses: readAddresses(object.address, `${path}.address`),
    topics: readTopics(object.topics, `${path}.topics`),
  };
}

/** Whether a log meets a filter's address and topic criteria. */
export function logMatches(spec: Pick<EthFilterSpec, 'addresses' | 'topics'>, log: EthLogRecord): boolean {
  if (spec.addresses.length > 0 && !spec.addresses.some((address) => bytesEqual(address, log.address))) return false;
  return spec.topics.every((wanted, i) => {
    if (wanted === null) return true;
    const topic = log.topics[i];
    return topic !== undefined && wanted.some((value) => bytesEqual(value, topic));
  });
}

function rangeExceeded(given: bigint): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.LimitExceeded,
    `block range exceeds maximum of ${MAX_FILTER_HEIGHT_RANGE} (got ${given})`,
  );
}

const notYetAvailable = () =>
  new JsonRpcError(JsonRpcErrorCode.CallFailed, 'events for the requested block are not yet available');

/**
 * Lotus `parseBlockRange`: the heights a filter spans, `latest` being the head's parent; `max`
 * undefined means whatever is latest at the time. A range over 2880 epochs is -32005.
 */
export function filterRange(spec: EthFilterSpec, latest: bigint): { min: bigint; max: bigint | undefined } {
  const min = spec.fromBlock?.kind === 'height' ? spec.fromBlock.height : latest;
  const max = spec.toBlock?.kind === 'height' ? spec.toBlock.height : undefined;
  if (max === undefined) {
    if (latest - min > MAX_FILTER_HEIGHT_RANGE) throw rangeExceeded(latest - min);
  } else {
    if (min > max) {
      throw new JsonRpcError(
        JsonRpcErrorCode.CallFailed,
        `invalid epoch range: to block (${max}) must be after from block (${min})`,
      );
    }
    if (max - min > MAX_FILTER_HEIGHT_RANGE) throw rangeExceeded(max - min);
  }
  return { min, max };
}

/** The height `latest` names: the head's parent's (0 at genesis). */
export function latestHeight(head: TipSet): bigint {
  return head.height === 0n ? 0n : head.height - 1n;
}

type LogsContext = ServedContext<'chain' | 'eth'>;

/**
 * The canonical tipsets from `max` down to `min` (null rounds skipped), each with its child, every
 * one's logs indexed (the indexer may not have reached an older tipset yet).
 */
function indexedCanonicalHashes(context: LogsContext, min: bigint, max: bigint): Set<string> {
  const { store } = context.chain;
  const head = store.head();
  const chainId = context.chain.params.eip155ChainId;
  const hashes = new Set<string>();
  // The lowest tipset above `max` executes `max`'s tipset (the head when max is the latest).
  let child = store.getTipSetByHeight(max + 1n, head, false);
  while (child.height > 0n) {
    const tipSet = store.loadTipSet(child.parents);
    if (tipSet.height < min) break;
    try {
      indexTipSetLogs(store, context.eth.index, tipSet, child, chainId);
      hashes.add(toHex(ethBlockHash(tipSet)));
    } catch {
      // Below a snapshot's or prune window the messages are gone: no logs to show, as Lotus has none indexed.
      break;
    }
    child = tipSet;
  }
  return hashes;
}

/** Lotus `EthGetLogs`: the logs a filter matches on the canonical chain. */
export function findLogs(context: LogsContext, spec: EthFilterSpec): EthLogRecord[] {
  const tipSets = ethTipSets(context);
  const head = tipSets.head;
  let range: { min: bigint; max: bigint };
  if (spec.blockHash !== null) {
    const tipSet = tipSets.byHash(spec.blockHash);
    if (tipSet === undefined) {
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `cannot find tipset with hash 0x${toHex(spec.blockHash)}`);
    }
    if (tipSet.height >= head.height) throw notYetAvailable();
    range = { min: tipSet.height, max: tipSet.height };
  } else {
    const latest = latestHeight(head);
    const { min, max } = filterRange(spec, latest);
    // Logs of a tipset exist once its child executed it: nothing at or above the head yet.
    if (min >= head.height || (max ?? latest) >= head.height) throw notYetAvailable();
    range = { min, max: max ?? latest };
  }
  const canonical = indexedCanonicalHashes(context, range.min, range.max);
  const query: EthLogQuery = {
    minHeight: range.min,
    maxHeight: range.max,
    blockHash: spec.blockHash ?? undefined,
    addresses: spec.addresses,
    topics: spec.topics,
  };
  const logs: EthLogRecord[] = [];
  let tipSetsSeen = 0;
  let lastBlock: Uint8Array | undefined;
  for (const log of context.eth.index.logs(query)) {
    if (!canonical.has(toHex(log.blockHash))) continue;
    if (lastBlock === undefined || !bytesEqual(lastBlock, log.blockHash)) {
      tipSetsSeen++;
      lastBlock = log.blockHash;
    }
    logs.push(log);
    // As Lotus: the cap holds only across tipsets, so every log of one block can be read.
    if (tipSetsSeen > 1 && logs.length > MAX_FILTER_RESULTS) {
      throw new JsonRpcError(
        JsonRpcErrorCode.CallFailed,
        'filter matches too many events, try a more restricted filter',
      );
    }
  }
  return logs;
}
