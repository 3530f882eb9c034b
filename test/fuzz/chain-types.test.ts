/**
 * Fuzz of the DAG-CBOR decoders of the chain types (src/types), which read blocks, messages and
 * gossip from peers and files. For each type: random bytes, and mutations of real encodings
 * (mainnet export40.car, Lotus and go-address vectors) — bit flips, truncations, extensions,
 * over-long CBOR heads, huge declared lengths, indefinite lengths, changed major types. Each input
 * decodes or is refused with the types' typed errors (`ERR_CBOR_DECODE`, `ERR_ADDRESS_*`) naming
 * the type; a decoded value re-encodes to exactly the bytes it came from (its CID must not change).
 * Round trips of arbitrary values are test/types/roundtrip.property.test.ts.
 */
import fc from 'fast-check';
import {
  Address,
  AddressErrorCode,
  bigIntFromCborNode,
  bigIntToCborNode,
  blockHeaderFromLotusJson,
  blockHeaderToLotusJson,
  decodeActor,
  decodeAddress,
  decodeBeaconEntry,
  decodeBlockHeader,
  decodeBlockMsg,
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
  encodeActor,
  encodeAddress,
  encodeBeaconEntry,
  encodeBlockHeader,
  encodeBlockMsg,
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
  messageFromLotusJson,
  messageToLotusJson,
  parseCid,
  signedMessageFromLotusJson,
  signedMessageToLotusJson,
  tipSetFromLotusJson,
  tipSetToLotusJson,
} from '../../src/types/index.js';
import { readVectorJson } from '../vectors/vectors-dir.js';
import { decodeChecked, fuzzParams, hex, mutationsOf, randomBytes, SEED } from './fuzz-kit.js';
import { loadRealEncodings, type RealEncodings } from './real-encodings.js';

const TYPE_CODES = ['ERR_CBOR_DECODE', ...Object.values(AddressErrorCode)];

interface Subject {
  readonly name: string;
  decode(bytes: Uint8Array): unknown;
  /** The value's encoding; `input` tells the versions a decoded value does not carry (actors). */
  encode(value: never, input: Uint8Array): Uint8Array;
  valid(real: RealEncodings): Uint8Array[];
}

const subject = <T>(
  name: string,
  decode: (bytes: Uint8Array) => T,
  encode: (value: T, input: Uint8Array) => Uint8Array,
  valid: (real: RealEncodings) => Uint8Array[],
): Subject => ({ name, decode, encode: encode as Subject['encode'], valid });

const decodeBigInt = (bytes: Uint8Array) => bigIntFromCborNode(decodeChainCbor(bytes, 'BigInt'), 'BigInt');
/** A 4-tuple is a v0–v4 state tree's actor, a 5-tuple (with the delegated address) v5's. */
const actorVersion = (input: Uint8Array) => (input[0] === 0x85 ? 5n : 4n);

const SUBJECTS: Subject[] = [
  subject('Address', decodeAddress, encodeAddress, (r) => r.addresses),
  subject(
    'BigInt',
    decodeBigInt,
    (value) => encodeCbor(bigIntToCborNode(value)),
    (r) => r.bigInts,
  ),
  subject('Ticket', decodeTicket, encodeTicket, (r) => r.tickets),
  subject('ElectionProof', decodeElectionProof, encodeElectionProof, (r) => r.electionProofs),
  subject('BeaconEntry', decodeBeaconEntry, encodeBeaconEntry, (r) => r.beaconEntries),
  subject('PoStProof', decodePoStProof, encodePoStProof, (r) => r.postProofs),
  subject('Signature', decodeSignature, encodeSignature, (r) => r.signatures),
  subject('Message', decodeMessage, encodeMessage, (r) => r.messages),
  subject('SignedMessage', decodeSignedMessage, encodeSignedMessage, (r) => r.signedMessages),
  subject('BlockHeader', decodeBlockHeader, encodeBlockHeader, (r) => r.headers),
  subject(
    'BlockMsg',
    (bytes) => decodeBlockMsg(bytes),
    encodeBlockMsg,
    (r) => r.blockMsgs,
  ),
  subject('TipSetKey', decodeTipSetKey, encodeTipSetKey, (r) => r.tipSetKeys),
  subject('TipSet', decodeTipSet, encodeTipSet, (r) => r.tipSets),
  subject('TxMeta', decodeTxMeta, encodeTxMeta, (r) => r.txMetas),
  subject('StateRoot', decodeStateRoot, encodeStateRoot, (r) =>
    // Mainnet's genesis state tree is v0, a bare HAMT root: StateRoot tuples (v1 on) are made here.
    r.decodedHeaders
      .slice(0, 3)
      .map((h, i) => encodeStateRoot({ version: BigInt(i + 3), actors: h.parentStateRoot, info: h.messages })),
  ),
  subject('MessageReceipt', decodeMessageReceipt, encodeMessageReceipt, () => [
    encodeMessageReceipt({
      version: 0,
      exitCode: 0n,
      return: new Uint8Array(0),
      gasUsed: 1_234_567n,
      eventsRoot: null,
    }),
    encodeMessageReceipt({
      version: 0,
      exitCode: 16n,
      return: Uint8Array.of(0x82, 0x01, 0x02),
      gasUsed: 0n,
      eventsRoot: null,
    }),
    encodeMessageReceipt({ version: 1, exitCode: -1n, return: Uint8Array.of(1), gasUsed: 2n ** 62n, eventsRoot: null }),
  ]),
  subject(
    'Actor',
    decodeActor,
    (actor, input) => encodeActor(actor, actorVersion(input)),
    (r) => {
      const header = r.decodedHeaders[0]!;
      const actor = { code: header.messages, head: header.parentStateRoot, nonce: 7n, balance: 10n ** 18n };
      return [
        encodeActor({ ...actor, delegatedAddress: null }, 4n),
        encodeActor({ ...actor, delegatedAddress: null }, 5n),
        encodeActor({ ...actor, delegatedAddress: header.miner }, 5n),
      ];
    },
  ),
];

let real: RealEncodings;
beforeAll(async () => {
  real = await loadRealEncodings();
}, 60_000);

describe.each(SUBJECTS)(`$name (fast-check seed ${SEED})`, (s) => {
  const rule = { codes: TYPE_CODES, names: new RegExp(`\\b${s.name}\\b`) };
  /** Decodes under the rule; what decodes must re-encode to the same bytes. */
  const check = (bytes: Uint8Array) => {
    const outcome = decodeChecked(() => s.decode(bytes), rule, bytes);
    if (outcome.ok) expect(hex(s.encode(outcome.value as never, bytes))).toBe(hex(bytes));
  };

  test('the real encodings decode and re-encode byte for byte', () => {
    const valid = s.valid(real);
    expect(valid.length).toBeGreaterThan(0);
    for (const bytes of valid) expect(hex(s.encode(s.decode(bytes) as never, bytes))).toBe(hex(bytes));
  });

  test('random bytes: a value or a typed error naming the type', () => {
    fc.assert(fc.property(randomBytes, check), fuzzParams(0.5));
  });

  test('mutated real encodings: a value that re-encodes identically, or a typed error', () => {
    fc.assert(fc.property(mutationsOf(s.valid(real)), check), fuzzParams(1));
  });
});

describe(`string forms read from RPC parameters and files (fast-check seed ${SEED})`, () => {
  /** Real strings with one character replaced, removed or inserted, or cut short. */
  const mutatedStrings = (valid: readonly string[]) =>
    fc
      .tuple(
        fc.constantFrom(...valid),
        fc.nat(),
        fc.constantFrom('replace', 'remove', 'insert', 'cut'),
        fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
      )
      .map(([text, at, kind, char]) => {
        const i = at % (text.length + 1);
        if (kind === 'cut') return text.slice(0, i);
        if (kind === 'insert') return `${text.slice(0, i)}${char}${text.slice(i)}`;
        return `${text.slice(0, i)}${kind === 'replace' ? char : ''}${text.slice(i + 1)}`;
      });

  test('Address.fromString: an address whose canonical string reads back the same, or an AddressError', () => {
    const vectors = readVectorJson<Record<string, unknown>>('address', 'address_vectors.json');
    const valid: string[] = ['t01000', 'f00', 't410fkkilgqaaaauaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'];
    for (const list of Object.values(vectors)) {
      if (!Array.isArray(list)) continue;
      for (const entry of list as Record<string, unknown>[]) {
        for (const key of ['testnet', 'mainnet', 'address', 'input']) {
          if (typeof entry?.[key] === 'string') valid.push(entry[key] as string);
        }
      }
    }
    const rule = { codes: Object.values(AddressErrorCode) as string[], names: /invalid|unknown/ };
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 120, unit: 'binary' }), { weight: 3, arbitrary: mutatedStrings(valid) }),
        (text) => {
          const outcome = decodeChecked(() => Address.fromString(text), rule, text);
          // As go-address, an ID may carry leading zeros (t0007); the canonical string reads back the same.
          if (outcome.ok) expect(Address.fromString(outcome.value.toString()).equals(outcome.value)).toBe(true);
        },
      ),
      fuzzParams(0.5),
    );
  });

  test('parseCid: a CID, or ERR_INVALID_CID', () => {
    const valid = real.decodedHeaders.slice(0, 5).flatMap((h) => [h.parentStateRoot.toString(), h.messages.toString()]);
    valid.push('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', 'zdj7WWeQ43G6JJvLWQWZpyHuAMq6uYWRjkBXFad11vE2LHhQ7');
    const rule = { codes: ['ERR_INVALID_CID'], names: /invalid CID/ };
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), { weight: 3, arbitrary: mutatedStrings(valid) }), (text) => {
        decodeChecked(() => parseCid(text), rule, text);
      }),
      fuzzParams(1),
    );
  });
});

describe(`Lotus JSON decoders, as RPC parameters reach them (fast-check seed ${SEED})`, () => {
  type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

  /** Every path to a member or item of a JSON value. */
  function paths(value: JsonValue, prefix: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return [prefix, ...value.flatMap((item, i) => paths(item, [...prefix, i]))];
    if (typeof value === 'object' && value !== null) {
      return [prefix, ...Object.entries(value).flatMap(([key, item]) => paths(item, [...prefix, key]))];
    }
    return [prefix];
  }

  /** `value` with the member at `path` replaced by `junk`, or removed. */
  function bend(value: JsonValue, path: (string | number)[], junk: JsonValue | undefined): JsonValue | undefined {
    if (path.length === 0) return junk;
    const [head, ...rest] = path;
    const inner = bend((value as Record<string | number, JsonValue>)[head!]!, rest, junk);
    if (Array.isArray(value)) {
      // Arrays from the wire have no holes: an item is removed, not left undefined.
      const copy = [...value];
      if (inner === undefined) copy.splice(head as number, 1);
      else copy[head as number] = inner;
      return copy;
    }
    const copy = { ...(value as Record<string, JsonValue>) };
    if (inner === undefined) delete copy[head!];
    else copy[head!] = inner;
    return copy;
  }

  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
    fc.constantFrom<JsonValue | undefined>(undefined, null, '', -1, 2 ** 53 + 2, '18446744073709551616', '-0', 'AAAA', {
      '/': 'bafy',
    }),
  );

  const jsonCases = [
    {
      name: 'Message',
      from: messageFromLotusJson,
      values: () => real.decodedMessages.slice(0, 10).map(messageToLotusJson),
    },
    {
      name: 'SignedMessage',
      from: signedMessageFromLotusJson,
      values: () => real.decodedSignedMessages.slice(0, 10).map(signedMessageToLotusJson),
    },
    {
      name: 'BlockHeader',
      from: blockHeaderFromLotusJson,
      values: () => real.decodedHeaders.slice(0, 10).map(blockHeaderToLotusJson),
    },
    {
      name: 'TipSet',
      from: tipSetFromLotusJson,
      values: () => real.tipSets.slice(0, 5).map((b) => tipSetToLotusJson(decodeTipSet(b))),
    },
  ] as const;

  test.each(jsonCases)(
    '$name: bent real Lotus JSON decodes or fails with a typed error naming the field',
    ({ name, from, values }) => {
      const valid = values() as unknown as JsonValue[];
      const rule = {
        codes: ['ERR_JSON_DECODE', ...Object.values(AddressErrorCode)],
        names: new RegExp(`\\b${name}\\b`),
      };
      fc.assert(
        fc.property(fc.constantFrom(...valid), fc.nat(), junk, (value, pick, replacement) => {
          const all = paths(value);
          const bent = bend(value, all[pick % all.length]!, replacement);
          decodeChecked(() => from(bent, name), rule, JSON.stringify(bent) ?? 'undefined');
        }),
        fuzzParams(0.3),
      );
    },
  );
});
