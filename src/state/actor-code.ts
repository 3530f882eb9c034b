/**
 * Actor code identifiers. Filecoin names an actor's type by the CID of its wasm code; ledger-node
 * runs TypeScript implementations instead, so it names them the way Filecoin named its first,
 * Go-only actors: a raw CID with an identity multihash of the ASCII string `fil/<version>/<name>`
 * (mainnet's actors v2 account code is `fil/2/account`). `<version>` is the builtin-actors version
 * whose methods, encodings and behaviour the implementation follows; `<name>` is the builtin-actors
 * manifest key. The CID carries its own meaning (`bafkqa…` decodes to the text), cannot collide
 * with a real wasm code CID, and changes whenever an implementation stops being compatible with the
 * state of the previous one.
 *
 * This file is the one table of names and CIDs; `vm/actors/registry.ts` binds each name to its
 * implementation.
 */
import { CID } from 'multiformats/cid';
import { identity } from 'multiformats/hashes/identity';
import { cidOfCbor, encodeCbor } from '../types/index.js';
import { byteKey } from './byte-key.js';

/** The builtin-actors version (v18, network version 28) our actors follow. */
export const ACTORS_VERSION = 18;

const RAW_CODEC = 0x55;

export const ACTOR_NAMES = [
  'system',
  'init',
  'cron',
  'account',
  'storagepower',
  'storageminer',
  'multisig',
  'reward',
  'placeholder',
  'ethaccount',
  'evm',
  'eam',
] as const;
export type ActorName = (typeof ACTOR_NAMES)[number];

/** The code CID of `fil/<version>/<name>`. */
export function actorCodeCid(name: string, version: number = ACTORS_VERSION): CID {
  return CID.createV1(RAW_CODEC, identity.digest(new TextEncoder().encode(`fil/${version}/${name}`)));
}

/** The code CID of each actor we implement. */
export const ACTOR_CODES: Readonly<Record<ActorName, CID>> = Object.fromEntries(
  ACTOR_NAMES.map((name) => [name, actorCodeCid(name)]),
) as Record<ActorName, CID>;

/**
 * Older codes we also run, where the actor's state has kept its layout since then: accounts of
 * actors v0 (`fil/1/account`) and v2 (`fil/2/account`) hold `[Address]` as ours do, so states
 * written by the Go actors (the legacy test vectors) can send and receive.
 */
const LEGACY_CODES: ReadonlyArray<readonly [CID, ActorName]> = [
  [actorCodeCid('account', 1), 'account'],
  [actorCodeCid('account', 2), 'account'],
];

const NAME_BY_CODE = new Map<string, ActorName>([
  ...ACTOR_NAMES.map((name) => [byteKey(ACTOR_CODES[name].bytes), name] as const),
  ...LEGACY_CODES.map(([cid, name]) => [byteKey(cid.bytes), name] as const),
]);

/** The actor type a code CID names, or undefined for codes we do not run. */
export function actorNameOf(code: CID): ActorName | undefined {
  return NAME_BY_CODE.get(byteKey(code.bytes));
}

/** Singleton actor IDs (builtin-actors `runtime/src/builtin/singletons.rs`). */
/** The head of an actor without state yet: the CID of the empty CBOR array. */
export const EMPTY_STATE_HEAD = cidOfCbor(encodeCbor([]));

export const SYSTEM_ACTOR_ID = 0n;
export const INIT_ACTOR_ID = 1n;
export const REWARD_ACTOR_ID = 2n;
export const CRON_ACTOR_ID = 3n;
export const STORAGE_POWER_ACTOR_ID = 4n;
export const STORAGE_MARKET_ACTOR_ID = 5n;
export const VERIFIED_REGISTRY_ACTOR_ID = 6n;
export const DATACAP_TOKEN_ACTOR_ID = 7n;
export const EAM_ACTOR_ID = 10n;
export const BURNT_FUNDS_ACTOR_ID = 99n;
/** Lotus genesis: the remainder (reserve) account. */
export const RESERVE_ACTOR_ID = 90n;
/** The first ID the Init actor hands out (builtin-actors FIRST_NON_SINGLETON_ADDR). */
export const FIRST_NON_SINGLETON_ID = 100n;
