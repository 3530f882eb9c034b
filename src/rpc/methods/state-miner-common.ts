/**
 * What the storage miner's State methods share (state-miner.ts, state-miner-proving.ts,
 * state-miner-pledge.ts): finding the miner at a tipset with Lotus's errors
 * (filecoin-project/lotus `chain/stmgr`, `chain/actors/builtin/miner/miner.go` Load), the method
 * declarations over a miner, and the JSON of sectors and bitfields as Lotus writes them.
 */
import { assertStateAvailable } from '../../chain/snapshot/index.js';
import { type BitField, bitFieldKind } from '../../ipld/index.js';
import { actorNameOf, StateTree } from '../../state/index.js';
import {
  type Actor,
  Address,
  AddressProtocol,
  type JsonInteger,
  type StructJson,
  type TipSet,
  type TipSetKey,
} from '../../types/index.js';
import { type SectorOnChainInfo, sectorOnChainInfoStruct } from '../../vm/index.js';
import { tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext } from '../context.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors.js';
import type { API_VERSIONS, ApiVersion, JsonSchema, ParamDeclaration, ResultDeclaration } from '../method.js';
import { addressParam, uint64Param } from '../params.js';
import { nullSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';

/** Refuses the call as Lotus reports a handler's error: code 1 with the message. */
export function failCall(message: string): never {
  throw new JsonRpcError(JsonRpcErrorCode.CallFailed, message);
}

/** The tipset named (null or [] for the head) and its parent state, where State queries read. */
export function parentStateOf(chain: ChainContext, key: TipSetKey): { tipSet: TipSet; tree: StateTree } {
  const tipSet = chain.store.tipSetOrHead(key);
  assertStateAvailable(chain.store, tipSet);
  return { tipSet, tree: StateTree.load(chain.store.blockstore, tipSet.parentStateRoot) };
}

export interface MinerAt {
  readonly tipSet: TipSet;
  readonly tree: StateTree;
  readonly actor: Actor;
  /** The miner's ID address. */
  readonly miner: Address;
}

/**
 * The miner actor of `address` at a tipset, refused with Lotus's messages (`StateManager.LoadActor`,
 * `miner.Load`) when there is no actor or it is not a miner; `context` is the caller's prefix.
 */
export function minerAt(
  chain: ChainContext,
  key: TipSetKey,
  address: Address,
  context = 'failed to load miner actor',
): MinerAt {
  const { tipSet, tree } = parentStateOf(chain, key);
  const id = tree.lookupId(address);
  const actor = id === undefined ? undefined : tree.getActor(id);
  if (id === undefined || actor === undefined) {
    const resolved = address.protocol === AddressProtocol.ID || id !== undefined;
    failCall(`${context}: ${resolved ? '' : `resolution lookup failed (${address}): `}actor not found`);
  }
  const name = actorNameOf(actor.code);
  if (name !== 'storageminer') {
    const reason = name === undefined ? `unknown actor code ${actor.code}` : `actor code is not miner: ${name}`;
    failCall(`${context} state: ${reason}`);
  }
  return { tipSet, tree, actor, miner: Address.newId(id) };
}

export const tipSetParam = tipSetKeyParam('tsk', 'the tipset; null or [] for the head');
export const minerParam = addressParam('miner', 'the miner address');
export const sectorNumberParam = uint64Param('sectorNumber', 'the sector number');

/** What a method over one miner declares; the permission (read), the parameters and the lookup are the helpers'. */
interface MinerMethodDeclaration<N extends string, R, J, V extends readonly ApiVersion[]> {
  readonly name: N;
  readonly description: string;
  readonly apiVersions?: V;
  readonly result: ResultDeclaration<R, J>;
  /** The prefix of Lotus's error when there is no such miner (its callers word it differently). */
  readonly loadContext?: string;
}

/** A read of one miner at a tipset: parameters `[miner, tsk]`. */
export function declareMinerMethod<
  const N extends string,
  R,
  J,
  const V extends readonly ApiVersion[] = typeof API_VERSIONS,
>(declaration: MinerMethodDeclaration<N, R, J, V> & { readonly read: (at: MinerAt, chain: ChainContext) => R }) {
  const { read, loadContext, ...rest } = declaration;
  return declareChainMethod({
    ...rest,
    permission: 'read',
    params: [minerParam, tipSetParam],
    handler: ([address, key], { chain }) => read(minerAt(chain, key, address, loadContext), chain),
  });
}

/** A read of one miner at a tipset with one more parameter: `[miner, param, tsk]`. */
export function declareMinerMethodWith<
  const N extends string,
  T,
  P,
  R,
  J,
  const V extends readonly ApiVersion[] = typeof API_VERSIONS,
>(
  param: ParamDeclaration<T, P>,
  declaration: MinerMethodDeclaration<N, R, J, V> & {
    readonly read: (at: MinerAt, value: T, chain: ChainContext) => R;
  },
) {
  const { read, loadContext, ...rest } = declaration;
  return declareChainMethod({
    ...rest,
    permission: 'read',
    params: [minerParam, param, tipSetParam],
    handler: ([address, value, key], { chain }) => read(minerAt(chain, key, address, loadContext), value, chain),
  });
}

/** The properties of a declared struct's schema, to reshape it. */
export function schemaProperties(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema as { properties: Record<string, JsonSchema> }).properties;
}

export function nullable(schema: JsonSchema): JsonSchema {
  return { oneOf: [schema, nullSchema] };
}

/** Lotus's SectorOnChainInfo JSON: the state's tuple without DeprecatedDealIDs. */
export type SectorJson = Omit<StructJson<typeof sectorOnChainInfoStruct>, 'DeprecatedDealIDs'>;

export function sectorJson(info: SectorOnChainInfo): SectorJson {
  const { DeprecatedDealIDs: _dealIds, ...json } = sectorOnChainInfoStruct.toLotusJson(info);
  return json;
}

const { DeprecatedDealIDs: _dealIdsSchema, ...sectorProperties } = schemaProperties(sectorOnChainInfoStruct.schema);
export const sectorSchema = { title: 'SectorOnChainInfo', type: 'object', properties: sectorProperties };

const sectorListSchema = { type: 'array', items: sectorSchema };
const sectorListJson = (sectors: readonly SectorOnChainInfo[]) => sectors.map(sectorJson);

export function sectorListResult(description: string): ResultDeclaration<SectorOnChainInfo[], SectorJson[]> {
  return { name: 'sectors', description, schema: sectorListSchema, encode: sectorListJson };
}

export function bitFieldResult(description: string): ResultDeclaration<BitField, JsonInteger[]> {
  return { name: 'bitField', description, schema: bitFieldKind.schema, encode: bitFieldKind.toJson };
}
