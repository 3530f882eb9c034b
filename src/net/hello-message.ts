/**
 * The hello protocol's messages (filecoin-project/lotus `node/hello/hello.go`), CBOR tuples:
 * HelloMessage
 * `[HeaviestTipSet [CID], HeaviestTipSetHeight int64, HeaviestTipSetWeight BigInt, GenesisHash CID]`
 * and LatencyMessage `[TArrival int64, TSent int64]` (Unix nanoseconds).
 */
import type { CID } from 'multiformats/cid';
import {
  bigIntFromCborNode,
  bigIntToCborNode,
  type CborNode,
  decodeChainCbor,
  encodeCbor,
  readArray,
  readCid,
  readInt64,
  readTuple,
} from '../types/index.js';

export const HELLO_PROTOCOL = '/fil/hello/1.0.0';

export interface HelloMessage {
  readonly heaviestTipSet: readonly CID[];
  readonly heaviestTipSetHeight: bigint;
  readonly heaviestTipSetWeight: bigint;
  readonly genesisHash: CID;
}

export interface LatencyMessage {
  /** When the hello arrived, Unix nanoseconds. */
  readonly tArrival: bigint;
  /** When the reply was sent, Unix nanoseconds. */
  readonly tSent: bigint;
}

export function encodeHelloMessage(hello: HelloMessage): Uint8Array {
  return encodeCbor([
    [...hello.heaviestTipSet],
    hello.heaviestTipSetHeight,
    bigIntToCborNode(hello.heaviestTipSetWeight),
    hello.genesisHash,
  ] satisfies CborNode[]);
}

export function decodeHelloMessage(bytes: Uint8Array): HelloMessage {
  const path = 'HelloMessage';
  const [tipSet, height, weight, genesis] = readTuple(decodeChainCbor(bytes, path), path, 4);
  return {
    heaviestTipSet: readArray(tipSet, `${path}.HeaviestTipSet`, readCid),
    heaviestTipSetHeight: readInt64(height, `${path}.HeaviestTipSetHeight`),
    heaviestTipSetWeight: bigIntFromCborNode(weight, `${path}.HeaviestTipSetWeight`),
    genesisHash: readCid(genesis, `${path}.GenesisHash`),
  };
}

export function encodeLatencyMessage(latency: LatencyMessage): Uint8Array {
  return encodeCbor([latency.tArrival, latency.tSent] satisfies CborNode[]);
}

export function decodeLatencyMessage(bytes: Uint8Array): LatencyMessage {
  const path = 'LatencyMessage';
  const [arrival, sent] = readTuple(decodeChainCbor(bytes, path), path, 2);
  return { tArrival: readInt64(arrival, `${path}.TArrival`), tSent: readInt64(sent, `${path}.TSent`) };
}

/** The current time in Unix nanoseconds, as Go's `time.Now().UnixNano()`. */
export function nowNanos(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
