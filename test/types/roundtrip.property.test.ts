/**
 * Property tests: for every type, CBOR → object → Lotus JSON text → object → CBOR is the identity,
 * over random values that include the 64-bit edges, huge and negative BigInts, empty byte strings
 * and every address protocol.
 */
import fc from 'fast-check';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import {
  type Actor,
  Address,
  actorFromLotusJson,
  actorToLotusJson,
  addressFromLotusJson,
  addressToLotusJson,
  type BeaconEntry,
  type BlockHeader,
  beaconEntryFromLotusJson,
  beaconEntryToLotusJson,
  bigIntFromCborNode,
  bigIntFromLotusJson,
  bigIntToCborNode,
  bigIntToLotusJson,
  blockHeaderFromLotusJson,
  blockHeaderToLotusJson,
  decodeActor,
  decodeAddress,
  decodeBeaconEntry,
  decodeBlockHeader,
  decodeChainCbor,
  decodeElectionProof,
  decodeMessage,
  decodeMessageReceipt,
  decodePoStProof,
  decodeSignature,
  decodeSignedMessage,
  decodeStateRoot,
  decodeTicket,
  decodeTipSet,
  decodeTipSetKey,
  decodeTxMeta,
  type ElectionProof,
  electionProofFromLotusJson,
  electionProofToLotusJson,
  encodeActor,
  encodeAddress,
  encodeBeaconEntry,
  encodeBlockHeader,
  encodeCbor,
  encodeElectionProof,
  encodeMessage,
  encodeMessageReceipt,
  encodePoStProof,
  encodeSignature,
  encodeSignedMessage,
  encodeStateRoot,
  encodeTicket,
  encodeTipSet,
  encodeTipSetKey,
  encodeTxMeta,
  formatAttoFil,
  formatFil,
  MAX_INT64,
  MAX_UINT64,
  type Message,
  type MessageReceipt,
  MIN_INT64,
  messageFromLotusJson,
  messageReceiptFromLotusJson,
  messageReceiptToLotusJson,
  messageToLotusJson,
  type PoStProof,
  parseFil,
  parseJsonLossless,
  postProofFromLotusJson,
  postProofToLotusJson,
  type Signature,
  SignatureType,
  type SignedMessage,
  type StateRoot,
  signatureFromLotusJson,
  signatureToLotusJson,
  signedMessageFromLotusJson,
  signedMessageToLotusJson,
  stateRootFromLotusJson,
  stateRootToLotusJson,
  stringifyJsonLossless,
  type Ticket,
  TipSet,
  TipSetKey,
  type TxMeta,
  ticketFromLotusJson,
  ticketToLotusJson,
  tipSetFromLotusJson,
  tipSetKeyFromLotusJson,
  tipSetKeyToLotusJson,
  tipSetToLotusJson,
  txMetaFromLotusJson,
  txMetaToLotusJson,
} from '../../src/types/index.js';
import { concatBytes, toHex } from '../../src/utils/bytes.js';

const LARGEST_BIG_INT = 2n ** 1016n - 1n; // 127 magnitude bytes + the sign byte = 128

const uint64 = fc.oneof(
  fc.constantFrom(0n, 1n, 2n ** 53n, MAX_INT64, MAX_UINT64),
  fc.bigInt({ min: 0n, max: MAX_UINT64 }),
);
const int64 = fc.oneof(fc.constantFrom(MIN_INT64, -1n, 0n, MAX_INT64), fc.bigInt({ min: MIN_INT64, max: MAX_INT64 }));
const bigInt = fc.oneof(
  fc.constantFrom(0n, 1n, -1n, LARGEST_BIG_INT, -LARGEST_BIG_INT),
  fc.bigInt({ min: -(2n ** 128n), max: 2n ** 128n }),
  fc.bigInt({ min: -LARGEST_BIG_INT, max: LARGEST_BIG_INT }),
);
const bytes = (maxLength: number) => fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength }));
const fixedBytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const cid = fc
  .tuple(fc.constantFrom(0xb220, 0x12), fixedBytes(32))
  .map(([hash, digest]) => CID.createV1(0x71, Digest.create(hash, digest)));
const actorId = fc.oneof(fc.constantFrom(0n, MAX_INT64), fc.bigInt({ min: 0n, max: MAX_INT64 }));
const address: fc.Arbitrary<Address> = fc.oneof(
  actorId.map((id) => Address.newId(id)),
  fixedBytes(20).map((payload) => Address.fromBytes(concatBytes(Uint8Array.of(1), payload))),
  fixedBytes(20).map((payload) => Address.fromBytes(concatBytes(Uint8Array.of(2), payload))),
  fixedBytes(48).map((key) => Address.newBls(key)),
  fc.tuple(actorId, bytes(54)).map(([namespace, sub]) => Address.newDelegated(namespace, sub)),
);
const signature: fc.Arbitrary<Signature> = fc.record({
  type: fc.constantFrom(SignatureType.Secp256k1, SignatureType.BLS, SignatureType.Delegated),
  data: bytes(199),
});
const message: fc.Arbitrary<Message> = fc.record({
  to: address,
  from: address,
  nonce: uint64,
  value: bigInt,
  gasLimit: int64,
  gasFeeCap: bigInt,
  gasPremium: bigInt,
  method: uint64,
  params: bytes(256),
});
const ticket: fc.Arbitrary<Ticket> = fc.record({ vrfProof: bytes(96) });
const electionProof: fc.Arbitrary<ElectionProof> = fc.record({ winCount: int64, vrfProof: bytes(96) });
const beaconEntry: fc.Arbitrary<BeaconEntry> = fc.record({ round: uint64, data: bytes(96) });
const postProof: fc.Arbitrary<PoStProof> = fc.record({ postProof: int64, proofBytes: bytes(192) });
const blockHeader: fc.Arbitrary<BlockHeader> = fc.record({
  miner: address,
  ticket: fc.option(ticket, { nil: null }),
  electionProof: fc.option(electionProof, { nil: null }),
  beaconEntries: fc.array(beaconEntry, { maxLength: 3 }),
  winPoStProof: fc.array(postProof, { maxLength: 2 }),
  parents: fc.array(cid, { maxLength: 4 }),
  parentWeight: bigInt,
  height: int64,
  parentStateRoot: cid,
  parentMessageReceipts: cid,
  messages: cid,
  blsAggregate: fc.option(signature, { nil: null }),
  timestamp: uint64,
  blockSig: fc.option(signature, { nil: null }),
  forkSignaling: uint64,
  parentBaseFee: bigInt,
});
/** Up to 4 blocks of one epoch: a shared header with distinct tickets and message roots. */
const tipSetBlocks: fc.Arbitrary<BlockHeader[]> = fc
  .tuple(
    blockHeader,
    fc.uniqueArray(bytes(96), { minLength: 1, maxLength: 4, selector: toHex }),
    fc.array(cid, { minLength: 4, maxLength: 4 }),
  )
  .map(([base, tickets, roots]) =>
    tickets.map((vrfProof, i) => ({ ...base, ticket: { vrfProof }, messages: roots[i] as CID })),
  );
const receipt: fc.Arbitrary<MessageReceipt> = fc.oneof(
  fc.record({
    version: fc.constant(0 as const),
    exitCode: int64,
    return: bytes(64),
    gasUsed: int64,
    eventsRoot: fc.constant(null),
  }),
  fc.record({
    version: fc.constant(1 as const),
    exitCode: int64,
    return: bytes(64),
    gasUsed: int64,
    eventsRoot: fc.option(cid, { nil: null }),
  }),
);
const stateTreeVersion = fc.bigInt({ min: 0n, max: 5n });
const actorInTree: fc.Arbitrary<[Actor, bigint]> = stateTreeVersion.chain((version) =>
  fc.tuple(
    fc.record({
      code: cid,
      head: cid,
      nonce: uint64,
      balance: bigInt,
      delegatedAddress: version >= 5n ? fc.option(address, { nil: null }) : fc.constant(null),
    }),
    fc.constant(version),
  ),
);
const stateRoot: fc.Arbitrary<StateRoot> = fc.record({ version: uint64, actors: cid, info: cid });
const txMeta: fc.Arbitrary<TxMeta> = fc.record({ blsMessages: cid, secpkMessages: cid });

interface Codec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
  toJson(value: T): unknown;
  fromJson(json: unknown): T;
}

function roundTrip<T>(name: string, values: fc.Arbitrary<T>, codec: Codec<T>): void {
  it(`${name}: CBOR → object → Lotus JSON text → object → CBOR is the identity`, () => {
    fc.assert(
      fc.property(values, (value) => {
        const cbor = toHex(codec.encode(value));
        const decoded = codec.decode(Buffer.from(cbor, 'hex'));
        expect(toHex(codec.encode(decoded))).toBe(cbor);
        const text = stringifyJsonLossless(codec.toJson(decoded));
        expect(toHex(codec.encode(codec.fromJson(parseJsonLossless(text))))).toBe(cbor);
      }),
    );
  });
}

describe('round trips', () => {
  roundTrip('Address', address, {
    encode: encodeAddress,
    decode: decodeAddress,
    toJson: addressToLotusJson,
    fromJson: (json) => addressFromLotusJson(json),
  });
  roundTrip('BigInt', bigInt, {
    encode: (value) => encodeCbor(bigIntToCborNode(value)),
    decode: (cbor) => bigIntFromCborNode(decodeChainCbor(cbor, 'BigInt'), 'BigInt'),
    toJson: bigIntToLotusJson,
    fromJson: (json) => bigIntFromLotusJson(json, 'BigInt'),
  });
  roundTrip('Signature', signature, {
    encode: encodeSignature,
    decode: decodeSignature,
    toJson: signatureToLotusJson,
    fromJson: (json) => signatureFromLotusJson(json),
  });
  roundTrip('Message', message, {
    encode: encodeMessage,
    decode: decodeMessage,
    toJson: messageToLotusJson,
    fromJson: (json) => messageFromLotusJson(json),
  });
  roundTrip('SignedMessage', fc.record({ message, signature }) as fc.Arbitrary<SignedMessage>, {
    encode: encodeSignedMessage,
    decode: decodeSignedMessage,
    toJson: signedMessageToLotusJson,
    fromJson: (json) => signedMessageFromLotusJson(json),
  });
  roundTrip('Ticket', ticket, {
    encode: encodeTicket,
    decode: decodeTicket,
    toJson: ticketToLotusJson,
    fromJson: (json) => ticketFromLotusJson(json),
  });
  roundTrip('ElectionProof', electionProof, {
    encode: encodeElectionProof,
    decode: decodeElectionProof,
    toJson: electionProofToLotusJson,
    fromJson: (json) => electionProofFromLotusJson(json),
  });
  roundTrip('BeaconEntry', beaconEntry, {
    encode: encodeBeaconEntry,
    decode: decodeBeaconEntry,
    toJson: beaconEntryToLotusJson,
    fromJson: (json) => beaconEntryFromLotusJson(json),
  });
  roundTrip('PoStProof', postProof, {
    encode: encodePoStProof,
    decode: decodePoStProof,
    toJson: postProofToLotusJson,
    fromJson: (json) => postProofFromLotusJson(json),
  });
  roundTrip('BlockHeader', blockHeader, {
    encode: encodeBlockHeader,
    decode: decodeBlockHeader,
    toJson: blockHeaderToLotusJson,
    fromJson: (json) => blockHeaderFromLotusJson(json),
  });
  roundTrip(
    'TipSetKey',
    fc.array(cid, { maxLength: 5 }).map((cids) => TipSetKey.fromCids(cids)),
    {
      encode: encodeTipSetKey,
      decode: decodeTipSetKey,
      toJson: tipSetKeyToLotusJson,
      fromJson: (json) => tipSetKeyFromLotusJson(json),
    },
  );
  roundTrip(
    'TipSet',
    tipSetBlocks.map((headers) => TipSet.fromHeaders(headers)),
    {
      encode: encodeTipSet,
      decode: decodeTipSet,
      toJson: tipSetToLotusJson,
      fromJson: (json) => tipSetFromLotusJson(json),
    },
  );
  for (const version of [0, 1] as const) {
    roundTrip(
      `MessageReceipt v${version}`,
      receipt.filter((r) => r.version === version),
      {
        encode: encodeMessageReceipt,
        decode: decodeMessageReceipt,
        toJson: messageReceiptToLotusJson,
        // Lotus JSON does not carry the receipt version; the reader is told it.
        fromJson: (json) => messageReceiptFromLotusJson(json, 'MessageReceipt', version),
      },
    );
  }
  roundTrip('TxMeta', txMeta, {
    encode: encodeTxMeta,
    decode: decodeTxMeta,
    toJson: txMetaToLotusJson,
    fromJson: (json) => txMetaFromLotusJson(json),
  });
  roundTrip('StateRoot', stateRoot, {
    encode: encodeStateRoot,
    decode: decodeStateRoot,
    toJson: stateRootToLotusJson,
    fromJson: (json) => stateRootFromLotusJson(json),
  });

  it('Actor (encoding chosen by the state tree version): CBOR → object → Lotus JSON → object → CBOR', () => {
    fc.assert(
      fc.property(actorInTree, ([actor, version]) => {
        const cbor = toHex(encodeActor(actor, version));
        const decoded = decodeActor(Buffer.from(cbor, 'hex'));
        expect(toHex(encodeActor(decoded, version))).toBe(cbor);
        const back = actorFromLotusJson(parseJsonLossless(stringifyJsonLossless(actorToLotusJson(decoded))));
        expect(toHex(encodeActor(back, version))).toBe(cbor);
      }),
    );
  });
});

describe('other invariants', () => {
  it('an address reads back from its string on either network', () => {
    fc.assert(
      fc.property(address, fc.constantFrom('f' as const, 't' as const), (a, network) => {
        expect(Address.fromString(a.toString(network)).equals(a)).toBe(true);
      }),
    );
  });

  it('parseFil reads back formatFil and formatAttoFil exactly', () => {
    fc.assert(
      fc.property(
        bigInt.filter((v) => v.toString().length <= 45),
        (amount) => {
          expect(parseFil(formatFil(amount).replace(' FIL', ''))).toBe(amount);
          expect(parseFil(formatAttoFil(amount))).toBe(amount);
        },
      ),
    );
  });

  it('a tipset does not depend on the order its blocks arrive in', () => {
    fc.assert(
      fc.property(
        tipSetBlocks.chain((headers) =>
          fc.tuple(fc.constant(headers), fc.shuffledSubarray(headers, { minLength: headers.length })),
        ),
        ([headers, shuffled]) => {
          expect(TipSet.fromHeaders(shuffled).key.equals(TipSet.fromHeaders(headers).key)).toBe(true);
        },
      ),
    );
  });
});
