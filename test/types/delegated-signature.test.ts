/**
 * Delegated (type 3) signatures: signing as Lotus's wallet does, verification as Lotus
 * `AuthenticateMessage`, raw Ethereum transactions. Sources of truth: filecoin-project/lotus
 * fixtures re-typed from `chain/types/ethtypes/*_test.go` (commit b835fab7, cited per test), the
 * f410 vectors of shared/vectors/address, and ethers 6, an independent implementation, signing and
 * recovering.
 */
import { Signature as EthersSignature, Transaction, Wallet } from 'ethers';
import { CryptoError, secp256k1 } from '../../src/crypto/index.js';
import {
  Address,
  CREATE_EXTERNAL_METHOD,
  delegatedAddressFromPublicKey,
  delegatedRecoveryInput,
  EAM_ADDRESS,
  EthTransactionError,
  encodeCbor,
  encodeSignedEthTransaction,
  ethTransactionFromSignedMessage,
  ethTransactionHash,
  INVOKE_CONTRACT_METHOD,
  type Message,
  parseRawEthTransaction,
  SignatureType,
  type SignedMessage,
  signDelegatedMessage,
  verifyDelegatedSignature,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJson } from '../vectors/vectors-dir.js';

const DEVNET = 31415926;
const MAINNET = 314;
const hex = (bytes: Uint8Array) => `0x${toHex(bytes)}`;

describe('f410 addresses of keys', () => {
  it('TestDecode1 (lotus rlp_test.go) recovers the sender the address vectors list as f410fkkld…', () => {
    const vectors = readVectorJson<{ eth_f410f: Array<{ address: string; eth_address_derived?: string }> }>(
      'address',
      'address_vectors.json',
    );
    const expected = vectors.eth_f410f.find((v) => v.address === 'f410fkkld55ioe7qg24wvt7fu6pbknb56ht7pt4zamxa');
    expect(expected).toBeDefined();
    const raw = fromHex(
      '02f8758401df5e7680832c8411832c8411830767f89452963ef50e27e06d72d59fcb4f3c2a687be3cfef880de0b6b3a764000080c080a094b11866f453ad85a980e0e8a2fc98cbaeb4409618c7734a7e12ae2f66fd405da042dbfb1b37af102023830ceeee0e703ffba0b8b3afeb8fe59f405eca9ed61072',
    );
    const { signed } = parseRawEthTransaction(raw, DEVNET);
    expect(signed.message.from.toString()).toBe(expected?.address);
    verifyDelegatedSignature(signed, DEVNET);
  });

  it('agrees with ethers for random keys, and f410 text follows FIP-0055 (checksum over 04 0a ‖ address)', () => {
    for (let i = 0; i < 20; i++) {
      const privateKey = secp256k1.generatePrivateKey();
      const wallet = new Wallet(hex(privateKey));
      const address = delegatedAddressFromPublicKey(secp256k1.publicKey(privateKey));
      expect(hex(address.delegated().subaddress)).toBe(wallet.address.toLowerCase());
      expect(address.toString()).toMatch(/^f410f[a-z2-7]{39}$/);
      expect(Address.fromString(address.toString()).equals(address)).toBe(true);
    }
  });
});

describe('raw transactions signed by ethers', () => {
  const wallet = Wallet.createRandom();
  const sender = Address.newDelegated(10n, fromHex(wallet.address));
  const recipient = '0x52963ef50e27e06d72d59fcb4f3c2a687be3cfef';
  const common = { nonce: 5, gasLimit: 2_500_000n, to: recipient, value: 10n ** 18n + 1n, data: '0xcafe' };
  const forms = [
    ['EIP-1559', { ...common, type: 2, chainId: DEVNET, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 150_000n }],
    ['EIP-155', { ...common, type: 0, chainId: DEVNET, gasPrice: 1_000_000_000n }],
    ['homestead', { ...common, type: 0, chainId: 0, gasPrice: 1_000_000_000n }],
  ] as const;

  it.each(forms)('%s: hash, sender, message fields and verification', async (_, fields) => {
    const raw = await wallet.signTransaction(fields);
    const theirs = Transaction.from(raw);
    const { tx, signed, hash } = parseRawEthTransaction(fromHex(raw), DEVNET);
    expect(hex(hash)).toBe(theirs.hash);
    expect(hex(ethTransactionHash(tx))).toBe(theirs.hash);
    expect(signed.message.from.equals(sender)).toBe(true);
    const gasPrice = 'gasPrice' in fields ? fields.gasPrice : undefined;
    expect(signed.message).toMatchObject({
      nonce: 5n,
      value: 10n ** 18n + 1n,
      gasLimit: 2_500_000n,
      gasFeeCap: gasPrice ?? 2_000_000_000n,
      gasPremium: gasPrice ?? 150_000n,
      method: INVOKE_CONTRACT_METHOD,
    });
    expect(signed.message.to.toString()).toBe(Address.newDelegated(10n, fromHex(recipient)).toString());
    expect(toHex(signed.message.params)).toBe(toHex(encodeCbor(fromHex('cafe'))));
    expect(signed.signature.type).toBe(SignatureType.Delegated);
    expect(signed.signature.data).toHaveLength({ 'EIP-1559': 65, 'EIP-155': 69, homestead: 66 }[_]);
    verifyDelegatedSignature(signed, DEVNET);
    // The signed message converts back to the same transaction and the same bytes.
    const back = ethTransactionFromSignedMessage(signed, DEVNET);
    expect(hex(encodeSignedEthTransaction(back))).toBe(raw);
  });

  it('a deployment (no `to`) becomes EAM CreateExternal and verifies', async () => {
    const raw = await wallet.signTransaction({ ...forms[0][1], to: null, data: '0x6080604052' });
    const { signed, hash } = parseRawEthTransaction(fromHex(raw), DEVNET);
    expect(hex(hash)).toBe(Transaction.from(raw).hash);
    expect(signed.message.to.equals(EAM_ADDRESS)).toBe(true);
    expect(signed.message.method).toBe(CREATE_EXTERNAL_METHOD);
    verifyDelegatedSignature(signed, DEVNET);
  });

  it('a transaction for another chain is refused', async () => {
    const raw = await wallet.signTransaction({ ...forms[0][1], chainId: MAINNET });
    expect(() => parseRawEthTransaction(fromHex(raw), DEVNET)).toThrow(EthTransactionError);
    expect(() => parseRawEthTransaction(fromHex(raw), DEVNET)).toThrow(
      "chain id 314 does not match this network's 31415926",
    );
  });
});

describe('lotus fixtures with known senders and hashes', () => {
  it('TestEIP155Tx: sender 0xA2BBB7…', () => {
    const raw = fromHex(
      'f86680843b9aca00835dc1ba94c2dca9a18d4a4057921d1bcb22da05e68e46b1d06480820297a0f91ee69c4603c4f21131467ee9e06ad4a96d0a29fa8064db61f3adaea0eb6e92a07181e306bb8f773d94cc3b75e9835de00c004e072e6630c0c46971d38706bb01',
    );
    const { signed } = parseRawEthTransaction(raw, MAINNET);
    expect(hex(signed.message.from.delegated().subaddress)).toBe('0xa2bbb73ac59b256415e91a820b224dbaf2c268fa');
    verifyDelegatedSignature(signed, MAINNET);
  });

  it('TestEtherScanLegacyRLP: Ethereum mainnet tx 0xc55e2b90… from 0x32Be343B…', () => {
    const raw = fromHex(
      'f8718301efc58506fc23ac008305161594104994f45d9d697ca104e5704a7b77d7fec3537c890821878651a4d70000801ba051222d91a379452395d0abaff981af4cfcc242f25cfaf947dea8245a477731f9a03a997c910b4701cca5d933fb26064ee5af7fe3236ff0ef2b58aa50b25aff8ca5',
    );
    // Homestead: valid on any chain.
    const { tx, signed, hash } = parseRawEthTransaction(raw, DEVNET);
    expect(hex(hash)).toBe('0xc55e2b90168af6972193c1f86fa4d7d7b31a29c156665d15b9cd48618b5177ef');
    expect(tx.chainId).toBeNull();
    expect(hex(signed.message.from.delegated().subaddress)).toBe('0x32be343b94f860124dc4fee278fdcbd38c102d88');
    verifyDelegatedSignature(signed, DEVNET);
    // TestFailurePaths: r + 1 recovers another sender (or none).
    const mangled = encodeSignedEthTransaction({ ...tx, r: tx.r + 1n });
    let other: string | undefined;
    try {
      other = parseRawEthTransaction(mangled, DEVNET).signed.message.from.toString();
    } catch (error) {
      expect(error).toBeInstanceOf(CryptoError);
    }
    expect(other).not.toBe(signed.message.from.toString());
  });

  it('TestEIP1559TxArgs case 143 (chain 314) verifies', () => {
    const raw = fromHex(
      '02f89582013a81c882ea6082ea6082ea6094ff000000000000000000000000000000000003ec880de0b6b3a7640000a4f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064c001a0c991c81705a4c53a9255e72beb8243638c68f10c63b082755972bbbe15245d12a014f6852ae34c92882559e6810d4372109930a23b522368fdef2c85ce04e27839',
    );
    const { signed } = parseRawEthTransaction(raw, MAINNET);
    expect(signed.message.to.toString()).toBe('f01004');
    verifyDelegatedSignature(signed, MAINNET);
  });
});

describe('signDelegatedMessage (as Lotus’s wallet signs) and verifyDelegatedSignature', () => {
  const privateKey = secp256k1.generatePrivateKey();
  const wallet = new Wallet(hex(privateKey));
  const from = delegatedAddressFromPublicKey(secp256k1.publicKey(privateKey));
  const message: Message = {
    from,
    to: Address.newDelegated(10n, fromHex('52963ef50e27e06d72d59fcb4f3c2a687be3cfef')),
    nonce: 3n,
    value: 25n * 10n ** 17n,
    gasLimit: 1_000_000n,
    gasFeeCap: 100_000_000n,
    gasPremium: 100_000n,
    method: INVOKE_CONTRACT_METHOD,
    params: new Uint8Array(0),
  };
  const signed: SignedMessage = { message, signature: signDelegatedMessage(privateKey, message, DEVNET) };

  it('signs the EIP-1559 transaction: ethers recovers the same sender from our encoding', () => {
    expect(signed.signature.type).toBe(SignatureType.Delegated);
    expect(signed.signature.data).toHaveLength(65);
    verifyDelegatedSignature(signed, DEVNET);
    const raw = encodeSignedEthTransaction(ethTransactionFromSignedMessage(signed, DEVNET));
    const theirs = Transaction.from(hex(raw));
    expect(theirs.from).toBe(wallet.address);
    expect(theirs.chainId).toBe(BigInt(DEVNET));
    expect(theirs.value).toBe(message.value);
    // The same signature as ethers makes for that transaction (both RFC 6979).
    const unsigned = Transaction.from({ ...theirs.toJSON(), signature: null, hash: null });
    const ours = EthersSignature.from({
      r: hex(signed.signature.data.subarray(0, 32)),
      s: hex(signed.signature.data.subarray(32, 64)),
      v: 27 + (signed.signature.data[64] as number),
    });
    expect(wallet.signingKey.sign(unsigned.unsignedHash).serialized).toBe(ours.serialized);
  });

  it('refuses tampered messages and signatures, saying what is wrong', () => {
    const refused = (candidate: SignedMessage, why: string | RegExp, chainId = DEVNET) =>
      expect(() => verifyDelegatedSignature(candidate, chainId)).toThrow(
        expect.objectContaining({
          name: 'CryptoError',
          code: 'ERR_INVALID_SIGNATURE',
          message: expect.stringMatching(why),
        }),
      );
    const notBySender = /delegated signature is by f410f\w+, not by the sender f410f/;
    refused({ ...signed, message: { ...message, value: message.value + 1n } }, notBySender);
    refused({ ...signed, message: { ...message, nonce: 4n } }, notBySender);
    refused(signed, notBySender, MAINNET);
    const flipped = Uint8Array.from(signed.signature.data);
    flipped[10] = (flipped[10] as number) ^ 1;
    expect(() =>
      verifyDelegatedSignature({ ...signed, signature: { ...signed.signature, data: flipped } }, DEVNET),
    ).toThrow(CryptoError);
    refused({ ...signed, message: { ...message, method: 0n } }, /not a valid Ethereum transaction: method 0/);
    refused(
      { ...signed, signature: { type: SignatureType.Delegated, data: signed.signature.data.subarray(0, 64) } },
      /unsupported delegated signature of 64 bytes/,
    );
  });

  it('a legacy signature whose message has GasPremium ≠ GasFeeCap fails the round trip', async () => {
    const raw = await wallet.signTransaction({
      type: 0,
      chainId: DEVNET,
      nonce: 0,
      gasLimit: 1_000_000n,
      gasPrice: 100n,
      to: '0x52963ef50e27e06d72d59fcb4f3c2a687be3cfef',
      value: 1n,
    });
    const { signed: legacy } = parseRawEthTransaction(fromHex(raw), DEVNET);
    verifyDelegatedSignature(legacy, DEVNET);
    expect(() =>
      verifyDelegatedSignature({ ...legacy, message: { ...legacy.message, gasPremium: 99n } }, DEVNET),
    ).toThrow('Ethereum transaction roundtrip mismatch');
  });

  it('gives batch callers the digest and signature to recover', async () => {
    const { digest, signature } = delegatedRecoveryInput(signed, DEVNET);
    const [key] = await secp256k1.recoverDigestBatch([{ signature, digest }]);
    expect(delegatedAddressFromPublicKey(key as Uint8Array).equals(from)).toBe(true);
  });
});
