/** Behaviour specific to single types: CID rules, versions, signing bytes, Lotus JSON details. */
import {
  type Actor,
  Address,
  actorFromLotusJson,
  actorToLotusJson,
  blockCid,
  blockHeaderToLotusJson,
  blockSigningBytes,
  cidOfCbor,
  decodeActor,
  decodeBlockHeader,
  decodeMessageReceipt,
  decodeStateRoot,
  encodeActor,
  encodeBlockHeader,
  encodeMessage,
  encodeMessageReceipt,
  encodeSignedMessage,
  encodeStateRoot,
  type MessageReceipt,
  messageCid,
  messageReceiptFromLotusJson,
  messageReceiptToLotusJson,
  messageSigningBytes,
  messageToLotusJson,
  SignatureType,
  signatureFromLotusJson,
  signatureToLotusJson,
  signedMessageCid,
  signedMessageToLotusJson,
  stateRootFromLotusJson,
  stateRootToLotusJson,
  validateMessageFields,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { cidOf, sampleHeader, sampleMessage } from './fixtures.js';

describe('Message', () => {
  it('signs its binary CID (38 bytes 0171a0e40220…), not its CBOR', () => {
    const message = sampleMessage();
    expect(toHex(messageSigningBytes(message))).toBe(toHex(cidOfCbor(encodeMessage(message)).bytes));
    expect(toHex(messageSigningBytes(message)).startsWith('0171a0e40220')).toBe(true);
    expect(messageSigningBytes(message)).toHaveLength(38);
  });

  it('writes Lotus JSON with CID and null Params', () => {
    const json = messageToLotusJson(sampleMessage({ nonce: 2n ** 64n - 1n }));
    expect(json).toEqual({
      Version: 0,
      To: 'f01234',
      From: 'f1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy',
      Nonce: 18446744073709551615n,
      Value: '1000000000000000000',
      GasLimit: 1000000,
      GasFeeCap: '100000',
      GasPremium: '1000',
      Method: 0,
      Params: null,
      CID: { '/': messageCid(sampleMessage({ nonce: 2n ** 64n - 1n })).toString() },
    });
    expect(messageToLotusJson(sampleMessage({ params: Uint8Array.of(1, 2) })).Params).toBe('AQI=');
  });

  it.each([
    [{ value: -1n }, "'Value' field cannot be negative"],
    [{ value: 2n * 10n ** 27n + 1n }, "'Value' field cannot be greater than total filecoin supply"],
    [{ gasFeeCap: -1n }, "'GasFeeCap' field cannot be negative"],
    [{ gasPremium: -1n }, "'GasPremium' field cannot be negative"],
    [{ gasPremium: 100_001n }, "'GasFeeCap' less than 'GasPremium'"],
    [{ gasLimit: 0n }, "'GasLimit' field 0 must be positive"],
  ])('validateMessageFields rejects %p', (change, message) => {
    expect(() => validateMessageFields(sampleMessage(change))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_MESSAGE', message }),
    );
  });

  it('validateMessageFields accepts a well-formed message', () => {
    expect(() => validateMessageFields(sampleMessage())).not.toThrow();
  });
});

describe('SignedMessage', () => {
  const message = sampleMessage();

  it('is known by its unsigned CID when BLS-signed, by its own CID otherwise', () => {
    const blsSigned = { message, signature: { type: SignatureType.BLS, data: new Uint8Array(96).fill(1) } };
    const secpSigned = { message, signature: { type: SignatureType.Secp256k1, data: new Uint8Array(65).fill(1) } };
    const delegated = { message, signature: { type: SignatureType.Delegated, data: new Uint8Array(65).fill(1) } };
    expect(signedMessageCid(blsSigned).equals(messageCid(message))).toBe(true);
    expect(signedMessageCid(secpSigned).equals(cidOfCbor(encodeSignedMessage(secpSigned)))).toBe(true);
    expect(signedMessageCid(delegated).equals(cidOfCbor(encodeSignedMessage(delegated)))).toBe(true);
    expect(signedMessageToLotusJson(blsSigned).CID).toEqual({ '/': messageCid(message).toString() });
    expect(signedMessageToLotusJson(secpSigned).CID).toEqual({ '/': signedMessageCid(secpSigned).toString() });
    expect(signedMessageToLotusJson(secpSigned).Message.CID).toEqual({ '/': messageCid(message).toString() });
  });

  it('encodes the signature as one byte string type || data', () => {
    const signed = { message, signature: { type: SignatureType.Secp256k1, data: Uint8Array.of(0xaa, 0xbb) } };
    expect(toHex(encodeSignedMessage(signed))).toBe(`82${toHex(encodeMessage(message))}4301aabb`);
  });
});

describe('Signature JSON', () => {
  it('is {Type, Data} with Data always base64', () => {
    expect(signatureToLotusJson({ type: SignatureType.BLS, data: Uint8Array.of(1) })).toEqual({
      Type: 2,
      Data: 'AQ==',
    });
    expect(signatureToLotusJson({ type: SignatureType.BLS, data: new Uint8Array(0) }).Data).toBe('');
    expect(() => signatureFromLotusJson({ Type: '2', Data: '' })).toThrow(
      'Signature.Type: expected one of 1, 2, 3, got "2"',
    );
  });
});

describe('BlockHeader', () => {
  const header = sampleHeader();

  it('signs the header with BlockSig null, and the signature is not part of what it signs', () => {
    const signingBytes = blockSigningBytes(header);
    expect(signingBytes).toEqual(encodeBlockHeader({ ...header, blockSig: null }));
    expect(blockSigningBytes({ ...header, blockSig: { type: 2, data: new Uint8Array(96) } })).toEqual(signingBytes);
    expect(decodeBlockHeader(signingBytes).blockSig).toBeNull();
    expect(blockCid(header).equals(cidOfCbor(encodeBlockHeader(header)))).toBe(true);
  });

  it('writes empty slices and absent pointers as JSON null, like Lotus', () => {
    const json = blockHeaderToLotusJson(
      sampleHeader({ beaconEntries: [], winPoStProof: [], parents: [], ticket: null, blsAggregate: null }),
    );
    expect(json).toMatchObject({
      BeaconEntries: null,
      WinPoStProof: null,
      Parents: null,
      Ticket: null,
      BLSAggregate: null,
    });
    expect(Object.keys(blockHeaderToLotusJson(header))).toEqual([
      'Miner',
      'Ticket',
      'ElectionProof',
      'BeaconEntries',
      'WinPoStProof',
      'Parents',
      'ParentWeight',
      'Height',
      'ParentStateRoot',
      'ParentMessageReceipts',
      'Messages',
      'BLSAggregate',
      'Timestamp',
      'BlockSig',
      'ForkSignaling',
      'ParentBaseFee',
    ]);
  });
});

describe('MessageReceipt', () => {
  const v0: MessageReceipt = { version: 0, exitCode: 16n, return: Uint8Array.of(1), gasUsed: 1234n, eventsRoot: null };

  it('encodes v0 as 3 fields and v1 as 4, and decodes each to its version', () => {
    expect(toHex(encodeMessageReceipt(v0))).toBe('831041011904d2');
    const v1 = { ...v0, version: 1 as const, eventsRoot: cidOf('events') };
    const v1Null = { ...v0, version: 1 as const };
    expect(decodeMessageReceipt(encodeMessageReceipt(v0))).toEqual(v0);
    expect(decodeMessageReceipt(encodeMessageReceipt(v1)).eventsRoot?.equals(cidOf('events'))).toBe(true);
    expect(toHex(encodeMessageReceipt(v1Null))).toBe(`84${toHex(encodeMessageReceipt(v0)).slice(2)}f6`);
    expect(decodeMessageReceipt(encodeMessageReceipt(v1Null)).version).toBe(1);
  });

  it('refuses events in a v0 receipt', () => {
    expect(() => encodeMessageReceipt({ ...v0, eventsRoot: cidOf('events') })).toThrow(
      'a v0 receipt cannot carry events',
    );
  });

  it('writes {ExitCode, Return, GasUsed, EventsRoot}; reading takes the version from EventsRoot or the caller', () => {
    const json = messageReceiptToLotusJson(v0);
    expect(json).toEqual({ ExitCode: 16, Return: 'AQ==', GasUsed: 1234, EventsRoot: null });
    expect(messageReceiptFromLotusJson(json).version).toBe(0);
    expect(messageReceiptFromLotusJson(json, 'Receipt', 1).version).toBe(1);
    const withEvents = messageReceiptToLotusJson({ ...v0, version: 1, eventsRoot: cidOf('events') });
    expect(messageReceiptFromLotusJson(withEvents).version).toBe(1);
    expect(messageReceiptToLotusJson({ ...v0, return: new Uint8Array(0) }).Return).toBeNull();
  });
});

describe('Actor', () => {
  const actor: Actor = {
    code: cidOf('code'),
    head: cidOf('head'),
    nonce: 3n,
    balance: 10n ** 18n,
    delegatedAddress: null,
  };
  const withAddress = { ...actor, delegatedAddress: Address.newDelegated(10n, new Uint8Array(20).fill(7)) };

  it('has 4 fields before state tree version 5 and 5 from it', () => {
    expect(toHex(encodeActor(actor, 4n)).slice(0, 2)).toBe('84');
    expect(toHex(encodeActor(actor, 5n)).slice(0, 2)).toBe('85');
    expect(toHex(encodeActor(actor, 5n)).endsWith('f6')).toBe(true);
    expect(decodeActor(encodeActor(actor, 4n))).toEqual(actor);
    expect(decodeActor(encodeActor(withAddress, 5n)).delegatedAddress?.equals(withAddress.delegatedAddress)).toBe(true);
  });

  it('refuses a delegated address in an old state tree', () => {
    expect(() => encodeActor(withAddress, 4n)).toThrow('state tree version 4 cannot store one');
  });

  it('reads and writes Lotus JSON', () => {
    const json = actorToLotusJson(withAddress);
    expect(json).toEqual({
      Code: { '/': cidOf('code').toString() },
      Head: { '/': cidOf('head').toString() },
      Nonce: 3,
      Balance: '1000000000000000000',
      DelegatedAddress: withAddress.delegatedAddress.toString(),
    });
    expect(actorFromLotusJson(json).delegatedAddress?.equals(withAddress.delegatedAddress)).toBe(true);
    expect(actorToLotusJson(actor).DelegatedAddress).toBeNull();
  });
});

describe('StateRoot', () => {
  it('is [Version, Actors, Info] (the genesis-era empty info block is 80)', () => {
    const root = { version: 5n, actors: cidOf('hamt'), info: cidOfCbor(fromHex('80')) };
    const bytes = encodeStateRoot(root);
    expect(toHex(bytes).slice(0, 4)).toBe('8305');
    expect(decodeStateRoot(bytes)).toEqual(root);
    expect(stateRootToLotusJson(root)).toEqual({
      Version: 5,
      Actors: { '/': cidOf('hamt').toString() },
      Info: { '/': root.info.toString() },
    });
    expect(stateRootFromLotusJson(stateRootToLotusJson(root))).toEqual(root);
  });
});
