/**
 * drand chain info: the trust root of a drand chain (its public key, period, genesis time, genesis
 * seed and scheme), as a relay serves it at `/{chainhash}/info` and as Lotus pins it
 * (filecoin-project/lotus `build/buildconstants/drand.go` ChainInfoJSON). Its chain hash is computed
 * here, never taken from the relay (drand/drand `common/chain/info.go` Hash): sha256 of
 * uint32_be(period) ‖ int64_be(genesis_time) ‖ public key ‖ genesis seed ‖ beacon ID unless default.
 */
import { createHash } from 'node:crypto';
import { bytesEqual, fromHex, toHex } from '../utils/bytes.js';
import type { DrandNetwork, DrandScheme } from './drand-network.js';
import { DrandChainInfoError } from './errors.js';

export interface DrandChainInfo {
  /** The chain hash, computed from the other fields. */
  readonly hash: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly periodSecs: bigint;
  readonly genesisTime: bigint;
  /** The genesis seed (`groupHash` in drand's v1 JSON, `genesis_seed` in v2). */
  readonly groupHash: Uint8Array;
  readonly schemeId: string;
  /** '' or 'default' for drand's default beacon (mainnet), else e.g. 'quicknet'. */
  readonly beaconId: string;
}

/** drand scheme IDs (drand/drand `crypto/schemes.go`) the node verifies, with their key length. */
const SCHEMES: Readonly<Record<string, { scheme: DrandScheme; publicKeyLength: number }>> = {
  'pedersen-bls-chained': { scheme: 'chained', publicKeyLength: 48 },
  'bls-unchained-g1-rfc9380': { scheme: 'unchained', publicKeyLength: 96 },
};

/** drand's v1 chain info carries no scheme for the chains made before schemes existed. */
const DEFAULT_SCHEME_ID = 'pedersen-bls-chained';

export function drandChainHash(info: Omit<DrandChainInfo, 'hash'>): Uint8Array {
  const head = new Uint8Array(12);
  const view = new DataView(head.buffer);
  view.setUint32(0, Number(info.periodSecs));
  view.setBigInt64(4, info.genesisTime);
  const hash = createHash('sha256').update(head).update(info.publicKey).update(info.groupHash);
  if (info.beaconId !== '' && info.beaconId !== 'default') hash.update(info.beaconId);
  return new Uint8Array(hash.digest());
}

type Json = Record<string, unknown>;

function field<T>(json: Json, names: readonly string[], read: (value: unknown) => T | undefined, what: string): T {
  for (const name of names) {
    if (json[name] === undefined) continue;
    const value = read(json[name]);
    if (value === undefined) throw new DrandChainInfoError(`${what}: field "${name}" is malformed`);
    return value;
  }
  throw new DrandChainInfoError(`${what}: field "${names[0]}" is missing`);
}

const asHex = (value: unknown): Uint8Array | undefined => {
  if (typeof value !== 'string') return undefined;
  try {
    return fromHex(value);
  } catch {
    return undefined;
  }
};
const asInteger = (value: unknown): bigint | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Reads a chain info in drand's v1 JSON (`public_key`, `period`, `genesis_time`, `hash`, `groupHash`,
 * `schemeID`, `metadata.beaconID`) or v2 JSON (`genesis_seed`, `chain_hash`, `scheme`, `beacon_id`).
 * Refuses a scheme the node cannot verify, a key of the wrong length, and a `hash` that is not
 * the hash of the rest. `what` names the source in errors (a relay URL, a config file).
 */
export function parseDrandChainInfo(input: unknown, what: string): DrandChainInfo {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new DrandChainInfoError(`${what}: a drand chain info must be a JSON object`);
  }
  const json = input as Json;
  const publicKey = field(json, ['public_key'], asHex, what);
  const periodSecs = field(json, ['period'], asInteger, what);
  const genesisTime = field(json, ['genesis_time'], asInteger, what);
  const groupHash = field(json, ['groupHash', 'genesis_seed'], asHex, what);
  const schemeId = json.schemeID ?? json.scheme ?? DEFAULT_SCHEME_ID;
  const metadata = json.metadata as Json | undefined;
  const beaconId = asString(metadata?.beaconID ?? json.beacon_id ?? '') ?? '';
  if (typeof schemeId !== 'string' || SCHEMES[schemeId] === undefined) {
    throw new DrandChainInfoError(
      `${what}: drand scheme ${JSON.stringify(schemeId)} is not supported (supported: ${Object.keys(SCHEMES).join(', ')})`,
    );
  }
  if (publicKey.length !== SCHEMES[schemeId].publicKeyLength) {
    throw new DrandChainInfoError(
      `${what}: a ${schemeId} public key has ${SCHEMES[schemeId].publicKeyLength} bytes, got ${publicKey.length}`,
    );
  }
  if (periodSecs === 0n) throw new DrandChainInfoError(`${what}: the period must be at least 1 s`);
  const hash = drandChainHash({ publicKey, periodSecs, genesisTime, groupHash, schemeId, beaconId });
  const stated = json.hash ?? json.chain_hash;
  if (stated !== undefined && (typeof stated !== 'string' || stated.toLowerCase() !== toHex(hash))) {
    throw new DrandChainInfoError(
      `${what}: the chain hash ${JSON.stringify(stated)} is not the hash of the chain info (${toHex(hash)})`,
    );
  }
  return { hash, publicKey, periodSecs, genesisTime, groupHash, schemeId, beaconId };
}

/** The same chain: equal chain hashes (which cover key, period, genesis and seed) and the same scheme. */
export function sameDrandChain(a: DrandChainInfo, b: DrandChainInfo): boolean {
  return bytesEqual(a.hash, b.hash) && bytesEqual(a.publicKey, b.publicKey) && a.schemeId === b.schemeId;
}

/** The network view the verifier and the epoch-to-round mapping use. */
export function drandNetworkOf(name: string, info: DrandChainInfo): DrandNetwork {
  return {
    name,
    publicKey: info.publicKey,
    periodSecs: info.periodSecs,
    genesisTime: info.genesisTime,
    scheme: SCHEMES[info.schemeId]!.scheme,
  };
}
