import { bls } from '../../src/crypto/index.js';
import { signedMessageJson } from '../../src/rpc/results.js';
import {
  Address,
  encodeMessage,
  messageCid,
  messageSigningBytes,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  signedMessageToLotusJson,
} from '../../src/types/index.js';
import { blsChainMessage, signedChainMessage, signingBytesOf, unsignedMessageCid } from '../../src/vm/index.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';

const { alice, carol } = keys;

function signBls(unsigned: ReturnType<typeof message>): SignedMessage {
  return {
    message: unsigned,
    signature: { type: SignatureType.BLS, data: bls.sign(carol.privateKey, messageSigningBytes(unsigned)) },
  };
}

describe('signed messages encoded once per object', () => {
  const secp = signSecp(alice, message({ from: alice.address, to: Address.newId(100n), nonce: 7n, value: 5n }));
  const blsSigned = signBls(message({ from: carol.address, to: Address.newId(101n), nonce: 3n, value: 9n }));

  test('a secp256k1 message is known by its signed CID and signed the unsigned CID', () => {
    expect(signedChainMessage(secp).cid.equals(signedMessageCid(secp))).toBe(true);
    expect(unsignedMessageCid(secp).equals(messageCid(secp.message))).toBe(true);
    expect(signingBytesOf(secp)).toEqual(messageSigningBytes(secp.message));
  });

  test('a BLS message is known and charged by its unsigned form', () => {
    const chain = signedChainMessage(blsSigned);
    const expected = blsChainMessage(blsSigned.message);
    expect(chain.cid.equals(expected.cid)).toBe(true);
    expect(chain.cid.equals(signedMessageCid(blsSigned))).toBe(true);
    expect(chain.chainLength).toBe(encodeMessage(blsSigned.message).length);
    expect(unsignedMessageCid(blsSigned).equals(expected.cid)).toBe(true);
  });

  test('the API encoding with remembered CIDs is the Lotus JSON computed from scratch', () => {
    for (const signed of [secp, blsSigned]) {
      expect(signedMessageJson(signed)).toEqual(signedMessageToLotusJson(signed));
      // Asked again, the same CID objects answer (nothing encoded or hashed a second time).
      expect(signedChainMessage(signed).cid).toBe(signedChainMessage(signed).cid);
    }
  });
});
