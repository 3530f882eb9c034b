/**
 * Test helpers for the state machine: deterministic keys, a small devnet genesis built with the
 * real genesis builder, signed transfers, and tipset application with the 2k parameters.
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import {
  buildGenesis,
  type GenesisActor,
  type GenesisMiner,
  type GenesisTemplate,
} from '../../src/chain/genesis/index.js';
import { blake2b256, bls, secp256k1 } from '../../src/crypto/index.js';
import { MemoryBlockstore } from '../../src/ipld/index.js';
import { DEVNET_2K } from '../../src/params/index.js';
import { StateTree } from '../../src/state/index.js';
import {
  Address,
  type Message,
  messageSigningBytes,
  SignatureType,
  type SignedMessage,
} from '../../src/types/index.js';
import { applyTipset, type TipsetApplication, type TipsetBlock } from '../../src/vm/index.js';

export const FIL = 10n ** 18n;
export const PARAMS = DEVNET_2K;
export const GENESIS_TIMESTAMP = 1_700_000_000n;

export interface SecpKey {
  readonly privateKey: Uint8Array;
  readonly address: Address;
}

/** A secp256k1 key derived from a label, the same on every run. */
export function secpKey(label: string): SecpKey {
  const privateKey = blake2b256(new TextEncoder().encode(`secp:${label}`));
  return { privateKey, address: Address.newSecp256k1(secp256k1.publicKey(privateKey)) };
}

export interface BlsKey {
  readonly privateKey: Uint8Array;
  readonly address: Address;
}

export function blsKey(label: string): BlsKey {
  const privateKey = bls.privateKeyFromSeed(blake2b256(new TextEncoder().encode(`bls:${label}`)));
  return { privateKey, address: Address.newBls(bls.publicKey(privateKey)) };
}

export function signSecp(key: SecpKey, message: Message): SignedMessage {
  return {
    message,
    signature: { type: SignatureType.Secp256k1, data: secp256k1.sign(key.privateKey, messageSigningBytes(message)) },
  };
}

export function message(fields: Partial<Message> & Pick<Message, 'from' | 'to'>): Message {
  return {
    nonce: 0n,
    value: 0n,
    gasLimit: 10_000_000n,
    gasFeeCap: 200_000_000n,
    gasPremium: 100_000n,
    method: 0n,
    params: new Uint8Array(0),
    ...fields,
  };
}

/** A commitment CID shaped like the proofs module's (codec, multihash code), from a label. */
export function commitmentCid(kind: 'sealed' | 'unsealed', label: string): CID {
  const [codec, hash] = kind === 'sealed' ? [0xf102, 0xb401] : [0xf101, 0x1012];
  return CID.createV1(codec, Digest.create(hash, blake2b256(new TextEncoder().encode(`${kind}:${label}`))));
}

/** A genesis miner with `sectors` pre-sealed 2 KiB sectors (StackedDrg2KiBV1_1). */
export function genesisMiner(index: number, owner: Address, worker: Address, sectors: number): GenesisMiner {
  return {
    id: Address.newId(1000n + BigInt(index)),
    owner,
    worker,
    peerId: new TextEncoder().encode(`peer-${index}`),
    sectorSize: 2048n,
    sectors: Array.from({ length: sectors }, (_, i) => ({
      commR: commitmentCid('sealed', `${index}/${i}`),
      commD: commitmentCid('unsealed', `${index}/${i}`),
      sectorNumber: BigInt(i),
      proofType: 5,
    })),
  };
}

export interface TestChain {
  readonly store: MemoryBlockstore;
  readonly genesisRoot: CID;
  readonly genesisCid: CID;
}

export function accountOf(address: Address, balance: bigint): GenesisActor {
  return { type: 'account', balance, owner: address };
}

export function devnetTemplate(overrides: Partial<GenesisTemplate> = {}): GenesisTemplate {
  return {
    networkName: 'ledger-test',
    timestamp: GENESIS_TIMESTAMP,
    accounts: [],
    miners: [],
    remainderAccount: accountOf(secpKey('remainder').address, 0n),
    ...overrides,
  };
}

export function makeChain(template: GenesisTemplate): TestChain {
  const store = new MemoryBlockstore();
  const genesis = buildGenesis(store, template, PARAMS);
  return { store, genesisRoot: genesis.stateRoot, genesisCid: genesis.cid };
}

export function loadTree(chain: { store: MemoryBlockstore }, root: CID): StateTree {
  return StateTree.load(chain.store, root);
}

export function balanceOf(tree: StateTree, address: Address): bigint {
  const id = tree.lookupId(address);
  return id === undefined ? 0n : (tree.getActor(id)?.balance ?? 0n);
}

export function totalBalance(tree: StateTree): bigint {
  let total = 0n;
  for (const [, actor] of tree.actors()) total += actor.balance;
  return total;
}

/** Applies one tipset at `epoch` (parent `epoch − 1`) with the 2k parameters. */
export function applyAt(
  chain: { store: MemoryBlockstore },
  root: CID,
  epoch: bigint,
  blocks: readonly TipsetBlock[],
  options: { baseFee?: bigint; trace?: boolean; parentEpoch?: bigint } = {},
): Promise<TipsetApplication> {
  return applyTipset(
    chain.store,
    root,
    {
      epoch,
      parentEpoch: options.parentEpoch ?? epoch - 1n,
      baseFee: options.baseFee ?? PARAMS.minimumBaseFee,
      timestamp: GENESIS_TIMESTAMP + epoch * PARAMS.blockDelaySecs,
      genesisTimestamp: GENESIS_TIMESTAMP,
      blocks,
    },
    { networkParams: PARAMS, trace: options.trace ?? false },
  );
}

/** The accounts most tests use: two secp256k1 keys, one BLS key, and a genesis miner owned by `worker`. */
export const keys = {
  alice: secpKey('alice'),
  bob: secpKey('bob'),
  carol: blsKey('carol'),
  worker: blsKey('worker'),
};
export const MINER = Address.newId(1000n);

export function standardChain(): TestChain {
  return makeChain(
    devnetTemplate({
      accounts: [
        accountOf(keys.alice.address, 1000n * FIL),
        accountOf(keys.bob.address, 10n * FIL),
        accountOf(keys.carol.address, 5n * FIL),
        accountOf(keys.worker.address, 1000n * FIL),
      ],
      miners: [genesisMiner(0, keys.worker.address, keys.worker.address, 2)],
    }),
  );
}

/** One block from MINER with these secp messages (and BLS messages), WinCount 1. */
export function block(secpMessages: readonly SignedMessage[], blsMessages: readonly Message[] = []): TipsetBlock {
  return { miner: MINER, winCount: 1n, blsMessages, secpMessages };
}
