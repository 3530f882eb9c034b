/**
 * The chain blockstore's raw IPLD objects (filecoin-project/lotus `api/api_full.go` ChainIO,
 * `node/impl/full/chain.go`): read, test, store and measure blocks by CID, and decode an events
 * AMT (ChainGetEvents).
 */
import type { CID } from 'multiformats/cid';
import { Amt, type Blockstore, getBlock, verifyBlock } from '../../ipld/index.js';
import { blockLinks } from '../../state/index.js';
import {
  type CidJson,
  type Event,
  type EventJson,
  eventStruct,
  jsonFail,
  readJsonBytes,
  readJsonCid,
  readJsonObject,
} from '../../types/index.js';
import { nextTurn } from '../../utils/abort.js';
import { cidParam, nullableCidParam } from '../chain-codecs.js';
import type { ParamDeclaration, ResultDeclaration } from '../method.js';
import { booleanResult, bytesResult, voidResult } from '../results.js';
import { bytesSchema, cidSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';

const IDENTITY_HASH = 0x00;
/** go-cid's FilCommitmentUnsealed and FilCommitmentSealed: piece and sector commitments, which name no block. */
const FIL_COMMITMENT_CODECS = new Set([0xf101, 0xf102]);
/** How many blocks ChainStatObj reads before it hands the event loop back and checks its signal. */
const STAT_BLOCKS_PER_TURN = 512;

/** A block as ChainPutObj takes it: its CID and its bytes, which must hash to it. */
export interface ObjectBlock {
  readonly cid: CID;
  readonly bytes: Uint8Array;
}

/**
 * Lotus's parameter is a go-block-format `blocks.Block`, an interface encoding/json cannot fill,
 * so no Lotus client can send one over JSON; this node takes `{"Cid": {"/": …}, "RawData": base64}`.
 */
const objectBlockParam: ParamDeclaration<ObjectBlock, { Cid: CidJson; RawData: string }> = {
  name: 'block',
  description: 'the block: {Cid, RawData}, the CID its bytes hash to and the bytes in base64',
  schema: {
    title: 'Block',
    type: 'object',
    properties: { Cid: cidSchema, RawData: bytesSchema },
    required: ['Cid', 'RawData'],
  },
  decode: (json, path) => {
    const object = readJsonObject(json, path);
    if (object.Cid === undefined) jsonFail(`${path}.Cid`, 'a CID ({"/": "bafy…"})', undefined);
    const cid = readJsonCid(object.Cid, `${path}.Cid`);
    if (object.RawData === undefined) jsonFail(`${path}.RawData`, 'the block bytes in base64', undefined);
    const bytes = readJsonBytes(object.RawData, `${path}.RawData`);
    return { cid, bytes };
  },
};

/** Lotus `api.ObjStat`. */
export interface ObjStatJson {
  Size: number;
  Links: number;
}

/** The bytes of a block for the walk: identity CIDs carry theirs (Lotus's blockstore reads them inline). */
function statBlock(store: Blockstore, cid: CID): Uint8Array {
  return cid.multihash.code === IDENTITY_HASH ? cid.multihash.digest : getBlock(store, cid, 'object');
}

/**
 * Lotus `ChainStatObj`: the blocks reachable from `root` (itself included, each once), how many
 * and their bytes, leaving out those reachable from `base`. Commitment CIDs are leaves.
 */
async function statObject(
  store: Blockstore,
  root: CID,
  base: CID | null,
  signal: AbortSignal | undefined,
): Promise<ObjStatJson> {
  const seen = new Set<string>();
  let steps = 0;
  const walk = async (start: CID, count: (bytes: Uint8Array) => void) => {
    const pending = [start];
    for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
      const key = cid.toString();
      if (seen.has(key) || FIL_COMMITMENT_CODECS.has(cid.code)) continue;
      seen.add(key);
      const bytes = statBlock(store, cid);
      count(bytes);
      pending.push(...blockLinks(cid, bytes));
      if (++steps % STAT_BLOCKS_PER_TURN === 0) await nextTurn(signal);
    }
  };
  if (base !== null) await walk(base, () => undefined);
  const stat = { Size: 0, Links: 0 };
  await walk(root, (bytes) => {
    stat.Size += bytes.length;
    stat.Links += 1;
  });
  return stat;
}

const eventsResult: ResultDeclaration<Event[], EventJson[]> = {
  name: 'events',
  description: '[{Emitter, Entries: [{Flags, Key, Codec, Value}]}]',
  schema: { type: 'array', items: eventStruct.schema },
  encode: (events) => events.map(eventStruct.toLotusJson),
};

export const chainReadObj = declareChainMethod({
  name: 'ChainReadObj',
  description: 'Returns the raw bytes of a block of the chain blockstore, base64; an error when it is not there.',
  permission: 'read',
  params: [cidParam('cid', 'the block CID')],
  result: bytesResult('the block bytes'),
  handler: ([cid], { chain }) => getBlock(chain.store.blockstore, cid, 'object'),
});

export const chainHasObj = declareChainMethod({
  name: 'ChainHasObj',
  description: 'Tells whether the chain blockstore holds a block.',
  permission: 'read',
  params: [cidParam('cid', 'the block CID')],
  result: booleanResult('true when the block is there'),
  handler: ([cid], { chain }) => chain.store.blockstore.has(cid),
});

export const chainPutObj = declareChainMethod({
  name: 'ChainPutObj',
  description:
    'Stores a block in the chain blockstore, given as {Cid, RawData}; refused when the bytes do not hash to the CID.',
  permission: 'admin',
  params: [objectBlockParam],
  result: voidResult,
  handler: ([block], { chain }) => {
    verifyBlock(block.cid, block.bytes);
    chain.store.blockstore.put(block.cid, block.bytes);
  },
});

export const chainStatObj = declareChainMethod({
  name: 'ChainStatObj',
  description:
    'Counts the blocks reachable from a CID (itself included) and their bytes; with a base CID (null for none), leaves out the blocks reachable from the base. An error when a block is missing.',
  permission: 'read',
  expensive: true,
  params: [
    cidParam('obj', 'the root of the graph'),
    nullableCidParam('base', 'a root whose graph is left out, or null'),
  ],
  result: {
    name: 'objStat',
    description: 'Lotus ObjStat',
    schema: {
      title: 'ObjStat',
      type: 'object',
      properties: { Size: { type: 'integer', minimum: 0 }, Links: { type: 'integer', minimum: 0 } },
      required: ['Size', 'Links'],
    },
    encode: (stat: ObjStatJson) => stat,
  },
  handler: ([root, base], { chain }, { signal }) => statObject(chain.store.blockstore, root, base, signal),
});

export const chainGetEvents = declareChainMethod({
  name: 'ChainGetEvents',
  description:
    "Returns the events of an events AMT root (a receipt's EventsRoot), in index order; an error when the root is not in the blockstore. This node's actors emit no events yet, so its own receipts have a null EventsRoot.",
  permission: 'read',
  apiVersions: [1],
  params: [cidParam('eventsRoot', 'the root CID of the events AMT')],
  result: eventsResult,
  handler: ([root], { chain }) => {
    const amt = Amt.load(chain.store.blockstore, root);
    const events: Event[] = [];
    for (const [index] of amt.entries()) events.push(eventStruct.decode(amt.getBytes(index) as Uint8Array));
    return events;
  },
});

export const chainObjectMethods = [chainReadObj, chainHasObj, chainPutObj, chainStatObj, chainGetEvents];
