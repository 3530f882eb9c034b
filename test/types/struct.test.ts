/**
 * declareStruct: one field list gives the CBOR tuple codec, the Lotus JSON codec and the JSON schema.
 * A small struct of every kind is checked against hand-written expectations: the tuple's exact bytes,
 * the JSON shape, the schema, and the paths its errors name.
 */
import {
  Address,
  addressKind,
  CborDecodeError,
  cidOfCbor,
  declareStruct,
  encodeCbor,
  JsonDecodeError,
  kinds,
  messageStruct,
  SignatureType,
  type StructValue,
  signatureKind,
} from '../../src/types/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { InvalidArgumentError } from '../../src/utils/errors.js';

const root = cidOfCbor(new TextEncoder().encode('root'));

const roundStruct = declareStruct('Round', [
  { key: 'number', json: 'Number', kind: kinds.uint64 },
  { key: 'data', json: 'Data', kind: kinds.bytes },
]);

const thingStruct = declareStruct(
  'Thing',
  [
    { json: 'Version', kind: kinds.constant(kinds.uint64, 2n, 'the only thing version') },
    { key: 'owner', json: 'Owner', kind: addressKind },
    { key: 'height', json: 'Height', kind: kinds.int64 },
    { key: 'balance', json: 'Balance', kind: kinds.bigInt, description: 'attoFIL' },
    { key: 'root', json: 'Root', kind: kinds.cid },
    { key: 'rounds', json: 'Rounds', kind: kinds.array(kinds.struct(roundStruct), 3) },
    { key: 'first', json: 'First', kind: kinds.nullable(roundStruct.kind) },
    { key: 'signature', json: 'Signature', kind: kinds.nullable(signatureKind) },
  ],
  { minFields: 7 },
);

type Thing = StructValue<typeof thingStruct>;

const thing: Thing = {
  owner: Address.newId(1234n),
  height: -5n,
  balance: 10n ** 18n,
  root,
  rounds: [
    { number: 1n, data: Uint8Array.of(1, 2) },
    { number: 2n, data: new Uint8Array(0) },
  ],
  first: null,
  signature: { type: SignatureType.Secp256k1, data: Uint8Array.of(9) },
};

describe('declareStruct', () => {
  it('writes the fields as a tuple in declaration order, and reads it back', () => {
    const bytes = thingStruct.encode(thing);
    const expected = encodeCbor([
      2,
      Address.newId(1234n).bytes,
      -5,
      Uint8Array.of(0, 0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x00),
      root,
      [
        [1, Uint8Array.of(1, 2)],
        [2, new Uint8Array(0)],
      ],
      null,
      Uint8Array.of(1, 9),
    ]);
    expect(toHex(bytes)).toBe(toHex(expected));
    expect(thingStruct.decode(bytes)).toEqual(thing);
  });

  it('writes Lotus JSON under the declared names and reads it back', () => {
    const json = thingStruct.toLotusJson(thing);
    expect(json).toEqual({
      Version: 2,
      Owner: 'f01234',
      Height: -5,
      Balance: '1000000000000000000',
      Root: { '/': root.toString() },
      Rounds: [
        { Number: 1, Data: 'AQI=' },
        { Number: 2, Data: null },
      ],
      First: null,
      Signature: { Type: 1, Data: 'CQ==' },
    });
    expect(thingStruct.fromLotusJson(json)).toEqual(thing);
  });

  it('gives a value of a fixed shape: the declared keys, in order', () => {
    expect(Object.keys(thingStruct.decode(thingStruct.encode(thing)))).toEqual([
      'owner',
      'height',
      'balance',
      'root',
      'rounds',
      'first',
      'signature',
    ]);
  });

  it('derives the JSON schema: the fields under their JSON names, descriptions, and the fields JSON must carry', () => {
    const schema = thingStruct.schema as { title: string; properties: Record<string, unknown>; required: string[] };
    expect(schema.title).toBe('Thing');
    expect(Object.keys(schema.properties)).toEqual([
      'Version',
      'Owner',
      'Height',
      'Balance',
      'Root',
      'Rounds',
      'First',
      'Signature',
    ]);
    expect(schema.properties.Balance).toEqual({ ...kinds.bigIntSchema, description: 'attoFIL' });
    expect(schema.properties.Rounds).toEqual({ type: ['array', 'null'], items: roundStruct.schema });
    expect(schema.properties.First).toEqual({ oneOf: [roundStruct.schema, { type: 'null' }] });
    expect(schema.properties.Version).toMatchObject({ enum: [2] });
    expect(schema.required).toEqual(['Owner', 'Root']);
  });

  it('names the path of a wrong field, nested ones and list items included', () => {
    const tuple = thingStruct.toCborNode(thing);
    const withField = (index: number, node: unknown) => tuple.map((item, i) => (i === index ? node : item));
    const cases: Array<[unknown, string]> = [
      [withField(2, Uint8Array.of(1)), 'Thing.Height: expected an integer, got bytes (1)'],
      [withField(4, 7), 'Thing.Root: expected a CID, got 7'],
      [
        withField(5, [
          [1, Uint8Array.of(1)],
          [-1, Uint8Array.of(1)],
        ]),
        'Thing.Rounds[1].Number: expected an unsigned',
      ],
      [withField(5, [[1], [2], [3], [4]]), 'Thing.Rounds: expected at most 3 items, got an array of 4'],
      [withField(6, [1]), 'Thing.First: expected an array of 2 fields, got an array of 1'],
      [withField(0, 1), 'Thing.Version: must be 2, got 1'],
    ];
    for (const [node, message] of cases) {
      expect(() => thingStruct.fromCborNode(node as never)).toThrow(CborDecodeError);
      expect(() => thingStruct.fromCborNode(node as never)).toThrow(message);
    }
    const json = thingStruct.toLotusJson(thing);
    expect(() => thingStruct.fromLotusJson({ ...json, Height: 'ten' }, 'params[0]')).toThrow(
      'params[0].Height: expected a signed 64-bit integer, got "ten"',
    );
    expect(() => thingStruct.fromLotusJson({ ...json, Version: 3 })).toThrow(
      'Thing.Version: must be 2 (the only thing version), got 3',
    );
  });

  it('refuses a tuple of another length and JSON without a field that has no zero value', () => {
    const tuple = thingStruct.toCborNode(thing);
    expect(() => thingStruct.fromCborNode(tuple.slice(0, 6))).toThrow(
      'Thing: expected an array of 7 or 8 fields, got an array of 6',
    );
    expect(() => thingStruct.fromCborNode([...tuple, null])).toThrow('Thing: expected an array of 7 or 8 fields');
    const { Root: _, ...withoutRoot } = thingStruct.toLotusJson(thing);
    expect(() => thingStruct.fromLotusJson(withoutRoot)).toThrow(JsonDecodeError);
    expect(() => thingStruct.fromLotusJson(withoutRoot)).toThrow('Thing.Root: expected a CID link');
    // Fields with a zero value take it when absent, as Go's encoding/json leaves them.
    expect(thingStruct.fromLotusJson({ Version: 2, Owner: 'f01234', Root: { '/': root.toString() } })).toEqual({
      owner: Address.newId(1234n),
      height: 0n,
      balance: 0n,
      root,
      rounds: [],
      first: null,
      signature: null,
    });
  });

  it('reads the short form of a versioned tuple with the trailing field null, and writes it', () => {
    const short = thingStruct.toCborNodeOfLength({ ...thing, signature: null }, 7);
    expect(short).toHaveLength(7);
    expect(thingStruct.fromCborNode(short)).toEqual({ ...thing, signature: null });
  });

  it('refuses to encode what Lotus could not read, naming the field', () => {
    expect(() => thingStruct.encode({ ...thing, height: 2n ** 63n })).toThrow(InvalidArgumentError);
    expect(() => thingStruct.encode({ ...thing, height: 2n ** 63n })).toThrow('Thing.Height: expected a signed 64-bit');
    const rounds = Array.from({ length: 4 }, () => ({ number: 1n, data: new Uint8Array(0) }));
    expect(() => thingStruct.encode({ ...thing, rounds })).toThrow('Thing.Rounds: 4 items exceed 3');
  });

  it('takes any declared name as it is (names are quoted into the compiled codec, never spliced)', () => {
    const odd = declareStruct('Odd', [{ key: 'a"b\\c', json: 'It\'s "odd"', kind: kinds.uint64 }]);
    const value = { 'a"b\\c': 5n };
    expect(odd.decode(odd.encode(value))).toEqual(value);
    expect(odd.toLotusJson(value)).toEqual({ 'It\'s "odd"': 5 });
    expect(odd.fromLotusJson({ 'It\'s "odd"': 6 })).toEqual({ 'a"b\\c': 6n });
  });

  it('serves the chain types: Message is a declaration, its JSON schema listing the Lotus names', () => {
    const properties = (messageStruct.schema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(properties)).toEqual([
      'Version',
      'To',
      'From',
      'Nonce',
      'Value',
      'GasLimit',
      'GasFeeCap',
      'GasPremium',
      'Method',
      'Params',
    ]);
    expect(messageStruct.schema).toMatchObject({ title: 'Message', required: ['To', 'From'] });
  });
});
