/** Small, valid chain objects for unit tests. */
import { Address, type BlockHeader, cidOfCbor, type Message, SignatureType } from '../../src/types/index.js';

export const cidOf = (text: string) => cidOfCbor(new TextEncoder().encode(text));

export function sampleMessage(overrides: Partial<Message> = {}): Message {
  return {
    to: Address.newId(1234n),
    from: Address.fromString('f1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy'),
    nonce: 7n,
    value: 10n ** 18n,
    gasLimit: 1_000_000n,
    gasFeeCap: 100_000n,
    gasPremium: 1_000n,
    method: 0n,
    params: new Uint8Array(0),
    ...overrides,
  };
}

export function sampleHeader(overrides: Partial<BlockHeader> = {}): BlockHeader {
  return {
    miner: Address.newId(1000n),
    ticket: { vrfProof: new Uint8Array(96).fill(1) },
    electionProof: { winCount: 1n, vrfProof: new Uint8Array(96).fill(2) },
    beaconEntries: [{ round: 42n, data: new Uint8Array(96).fill(3) }],
    winPoStProof: [{ postProof: 3n, proofBytes: new Uint8Array(192).fill(4) }],
    parents: [cidOf('parent-a'), cidOf('parent-b')],
    parentWeight: 1000n,
    height: 10n,
    parentStateRoot: cidOf('state'),
    parentMessageReceipts: cidOf('receipts'),
    messages: cidOf('messages'),
    blsAggregate: { type: SignatureType.BLS, data: new Uint8Array(96) },
    timestamp: 1598306700n,
    blockSig: { type: SignatureType.BLS, data: new Uint8Array(96).fill(5) },
    forkSignaling: 0n,
    parentBaseFee: 100n,
    ...overrides,
  };
}
