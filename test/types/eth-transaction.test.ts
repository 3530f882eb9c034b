/**
 * Ethereum transaction codecs (no hashing or signatures here: test/crypto/delegated.test.ts checks
 * those). Fixtures are re-typed from filecoin-project/lotus `chain/types/ethtypes/*_test.go`
 * (commit b835fab7), each cited by its test function; ethers 6 is the independent encoder.
 */
import { Transaction } from 'ethers';
import {
  Address,
  CREATE_EXTERNAL_METHOD,
  decodeSignedEthTransaction,
  EAM_ADDRESS,
  type EthTransaction,
  EthTransactionError,
  eip1559TransactionFromMessage,
  encodeCbor,
  encodeSignedEthTransaction,
  ethTransactionFromSignedMessage,
  ethTransactionSignature,
  ethTransactionSigningPayload,
  ethTransactionToMessage,
  ethTransactionVerifiableSignature,
  INVOKE_CONTRACT_METHOD,
  type Message,
  SignatureType,
} from '../../src/types/index.js';
import { concatBytes, fromHex, toHex } from '../../src/utils/bytes.js';

const MAINNET = 314;
const DEVNET = 31415926;
const hex = (bytes: Uint8Array) => `0x${toHex(bytes)}`;
const decode = (raw: string, chainId: number) => decodeSignedEthTransaction(fromHex(raw), chainId);

/** A sender for conversions (any f410 will do: these tests never check signatures). */
const SENDER = Address.fromString('f410fkkld55ioe7qg24wvt7fu6pbknb56ht7pt4zamxa');

describe('EIP-1559 transactions (lotus eth_1559_transactions_test.go)', () => {
  // TestEIP1559TxArgs (prepareTxTestcases): raw signed tx, its unsigned payload and fields; chain 314.
  const cases = [
    {
      input:
        '02f86282013a8080808094ff000000000000000000000000000000000003ec8080c080a0f411a73e33523b40c1a916e79e67746bd01a4a4fb4ecfa87b441375a215ddfb4a0551692c1553574fab4c227ca70cb1c121dc3a2ef82179a9c984bd7acc0880a38',
      nosig: '02df82013a8080808094ff000000000000000000000000000000000003ec8080c0',
      nonce: 0n,
      value: 0n,
      gasLimit: 0n,
      fee: 0n,
      tip: 0n,
      data: '',
    },
    {
      input:
        '02f88782013a81c880808094ff000000000000000000000000000000000003ec80a4f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064c080a0df137d0a6733354b2f2419a4ea5fe77d333deca28b2fe091d76190b51c2bae73a0232cbf9c29b8840cbf104ff77360fbf3ca4acda29b5e230636e19ac253ad92de',
      nosig:
        '02f84482013a81c880808094ff000000000000000000000000000000000003ec80a4f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064c0',
      nonce: 200n,
      value: 0n,
      gasLimit: 0n,
      fee: 0n,
      tip: 0n,
      data: 'f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064',
    },
    {
      input:
        '02f86882013a8082ea6082ea6082ea6094ff000000000000000000000000000000000003ec8080c080a06b382fcbe48de85615ff6e2dcc0c84021beb4abc527878accd36c9c77af84ba8a06a07d34a6896b270538525cb14b0856ceb442714fa85e4c9ee36dedf638935f9',
      nosig: '02e582013a8082ea6082ea6082ea6094ff000000000000000000000000000000000003ec8080c0',
      nonce: 0n,
      value: 0n,
      gasLimit: 60000n,
      fee: 60000n,
      tip: 60000n,
      data: '',
    },
    {
      input:
        '02f89582013a81c882ea6082ea6082ea6094ff000000000000000000000000000000000003ec880de0b6b3a7640000a4f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064c001a0c991c81705a4c53a9255e72beb8243638c68f10c63b082755972bbbe15245d12a014f6852ae34c92882559e6810d4372109930a23b522368fdef2c85ce04e27839',
      nosig:
        '02f85282013a81c882ea6082ea6082ea6094ff000000000000000000000000000000000003ec880de0b6b3a7640000a4f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064c0',
      nonce: 200n,
      value: 10n ** 18n,
      gasLimit: 60000n,
      fee: 60000n,
      tip: 60000n,
      data: 'f8b2cb4f000000000000000000000000ff00000000000000000000000000000000000064',
    },
  ];

  it.each(cases.map((c, i) => [i, c] as const))(
    'case %i decodes, re-encodes and gives its unsigned payload',
    (_, c) => {
      const tx = decode(c.input, MAINNET);
      expect(tx).toMatchObject({
        type: 2,
        chainId: MAINNET,
        nonce: c.nonce,
        value: c.value,
        gasLimit: c.gasLimit,
        maxFeePerGas: c.fee,
        maxPriorityFeePerGas: c.tip,
      });
      expect(toHex(tx.to as Uint8Array)).toBe('ff000000000000000000000000000000000003ec');
      expect(toHex(tx.input)).toBe(c.data);
      expect(toHex(ethTransactionSigningPayload(tx))).toBe(c.nosig);
      expect(toHex(encodeSignedEthTransaction(tx))).toBe(c.input);
      // The message: InvokeContract on the masked ID's f01004, the input as a CBOR byte string.
      const message = ethTransactionToMessage(tx, SENDER, MAINNET);
      expect(message.to.toString()).toBe('f01004');
      expect(message.method).toBe(INVOKE_CONTRACT_METHOD);
      expect(toHex(message.params)).toBe(c.data === '' ? '' : toHex(encodeCbor(fromHex(c.data))));
      expect([message.nonce, message.value, message.gasLimit, message.gasFeeCap, message.gasPremium]).toEqual([
        c.nonce,
        c.value,
        c.gasLimit,
        c.fee,
        c.tip,
      ]);
    },
  );

  it('reads r, s and v as TestEIP1559Signatures expects (chain 31415926)', () => {
    const vectors = [
      {
        raw: '02f8598401df5e76028301d69083086a5e835532dd808080c080a0457e33227ac7ceee2ef121755e26b872b6fb04221993f9939349bb7b0a3e1595a02d8ef379e1d2a9e30fa61c92623cc9ed72d80cf6a48cfea341cb916bcc0a81bc',
        r: 0x457e33227ac7ceee2ef121755e26b872b6fb04221993f9939349bb7b0a3e1595n,
        s: 0x2d8ef379e1d2a9e30fa61c92623cc9ed72d80cf6a48cfea341cb916bcc0a81bcn,
        v: 0n,
      },
      {
        raw: '02f8598401df5e76038301d69083086a5e835532dd808080c001a012a232866dcb0671eb0ddc01fb9c01d6ef384ec892bb29691ed0d2d293052ddfa052a6ae38c6139930db21a00eee2a4caced9a6500991b823d64ec664d003bc4b1',
        r: 0x12a232866dcb0671eb0ddc01fb9c01d6ef384ec892bb29691ed0d2d293052ddfn,
        s: 0x52a6ae38c6139930db21a00eee2a4caced9a6500991b823d64ec664d003bc4b1n,
        v: 1n,
      },
    ];
    for (const { raw, r, s, v } of vectors) {
      const tx = decode(raw, DEVNET);
      expect([tx.r, tx.s, tx.v]).toEqual([r, s, v]);
      // A deployment (empty `to`) goes to the EAM's CreateExternal.
      expect(tx.to).toBeNull();
      const message = ethTransactionToMessage(tx, SENDER, DEVNET);
      expect(message.to.equals(EAM_ADDRESS)).toBe(true);
      expect(message.method).toBe(CREATE_EXTERNAL_METHOD);
      expect(message.params).toHaveLength(0);
      // The 65-byte delegated signature, and back.
      const signature = ethTransactionSignature(tx);
      expect(hex(signature.data)).toBe(`0x${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}0${v}`);
      expect(ethTransactionFromSignedMessage({ message, signature }, DEVNET)).toEqual(tx);
    }
    expect(() => decode('00', DEVNET)).toThrow(EthTransactionError);
  });
});

describe('legacy transactions', () => {
  // lotus eth_legacy_homestead_transactions_test.go TestEthLegacyHomesteadTxArgs / TestLegacyHomesteadSignatures.
  const homestead = [
    {
      raw: 'f882800182540894095e7baea6a6c7c4c2dfeb977efac326af552d8780a3deadbeef0000000101010010101010101010101010101aaabbbbbbcccccccddddddddd1ba048b55bfa915ac795c431978d8a6a992b628d557da5ff759b307d495a36649353a01fffd310ac743f371de3b9f7f9cb56c0b28ad43601b4ab949f53faa07bd2c804',
      nonce: 0n,
      to: '095e7baea6a6c7c4c2dfeb977efac326af552d87',
      input: 'deadbeef0000000101010010101010101010101010101aaabbbbbbcccccccddddddddd',
      gasPrice: 1n,
      gasLimit: 0x5408n,
      r: 0x48b55bfa915ac795c431978d8a6a992b628d557da5ff759b307d495a36649353n,
      s: 0x1fffd310ac743f371de3b9f7f9cb56c0b28ad43601b4ab949f53faa07bd2c804n,
    },
    {
      raw: 'f85f030182520794b94f5374fce5edbc8e2a8697c15331677e6ebf0b0a801ba098ff921201554726367d2be8c804a7ff89ccf285ebc57dff8ae4c44b9c19ac4aa07778cde41a8a37f6a087622b38bc201bd3e7df06dce067569d4def1b53dba98c',
      nonce: 3n,
      to: 'b94f5374fce5edbc8e2a8697c15331677e6ebf0b',
      input: '',
      gasPrice: 1n,
      gasLimit: 0x5207n,
      r: 0x98ff921201554726367d2be8c804a7ff89ccf285ebc57dff8ae4c44b9c19ac4an,
      s: 0x7778cde41a8a37f6a087622b38bc201bd3e7df06dce067569d4def1b53dba98cn,
    },
  ];

  it.each(homestead.map((c, i) => [i, c] as const))('homestead case %i: fields, v 27, 66-byte signature', (_, c) => {
    // Homestead commits to no chain: it parses on any network.
    const tx = decode(c.raw, DEVNET);
    expect(tx).toMatchObject({ type: 0, chainId: null, nonce: c.nonce, gasLimit: c.gasLimit, v: 27n, r: c.r, s: c.s });
    expect([tx.maxFeePerGas, tx.maxPriorityFeePerGas]).toEqual([c.gasPrice, c.gasPrice]);
    expect(toHex(tx.to as Uint8Array)).toBe(c.to);
    expect(toHex(tx.input)).toBe(c.input);
    expect(toHex(encodeSignedEthTransaction(tx))).toBe(c.raw);
    const signature = ethTransactionSignature(tx);
    expect(signature.data).toHaveLength(66);
    expect(signature.data[0]).toBe(0x01);
    expect(signature.data[65]).toBe(27);
    // The verifiable form drops the prefix and maps 27 to recovery id 0.
    expect(toHex(ethTransactionVerifiableSignature(tx))).toBe(`${toHex(signature.data.subarray(1, 65))}00`);
    const message = ethTransactionToMessage(tx, SENDER, DEVNET);
    expect([message.gasFeeCap, message.gasPremium]).toEqual([c.gasPrice, c.gasPrice]);
    expect(ethTransactionFromSignedMessage({ message, signature }, DEVNET)).toEqual(tx);
  });

  it('EIP-155: TestEIP155Tx (v 0x297 = 2·314 + 35) on mainnet; 67-byte signature', () => {
    const raw =
      'f86680843b9aca00835dc1ba94c2dca9a18d4a4057921d1bcb22da05e68e46b1d06480820297a0f91ee69c4603c4f21131467ee9e06ad4a96d0a29fa8064db61f3adaea0eb6e92a07181e306bb8f773d94cc3b75e9835de00c004e072e6630c0c46971d38706bb01';
    const tx = decode(raw, MAINNET);
    expect(tx).toMatchObject({
      type: 0,
      chainId: MAINNET,
      nonce: 0n,
      value: 100n,
      gasLimit: 6144442n,
      maxFeePerGas: 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      v: 0x297n,
      r: 0xf91ee69c4603c4f21131467ee9e06ad4a96d0a29fa8064db61f3adaea0eb6e92n,
      s: 0x7181e306bb8f773d94cc3b75e9835de00c004e072e6630c0c46971d38706bb01n,
    });
    expect(toHex(tx.to as Uint8Array)).toBe('c2dca9a18d4a4057921d1bcb22da05e68e46b1d0');
    expect(tx.input).toHaveLength(0);
    expect(toHex(encodeSignedEthTransaction(tx))).toBe(raw);
    const message = ethTransactionToMessage(tx, SENDER, MAINNET);
    expect(message).toMatchObject({
      method: INVOKE_CONTRACT_METHOD,
      gasFeeCap: 1_000_000_000n,
      gasPremium: 1_000_000_000n,
    });
    expect(message.params).toHaveLength(0);
    const signature = ethTransactionSignature(tx);
    expect(signature.data).toHaveLength(67);
    expect(toHex(signature.data.subarray(65))).toBe('0297');
    expect(ethTransactionFromSignedMessage({ message, signature }, MAINNET)).toEqual(tx);
    // The same transaction on another chain is refused, naming both chain ids.
    expect(() => decode(raw, DEVNET)).toThrow("chain id 314 does not match this network's 31415926");
  });

  it('the devnet EIP-155 signature is 69 bytes (v 62831887/8 takes 4 bytes)', () => {
    const tx: EthTransaction = {
      type: 0,
      chainId: DEVNET,
      nonce: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 7n,
      maxPriorityFeePerGas: 7n,
      to: fromHex('ff00000000000000000000000000000000000064'),
      value: 1n,
      input: new Uint8Array(0),
      v: 62831888n,
      r: 1n,
      s: 2n,
    };
    const signature = ethTransactionSignature(tx);
    expect(signature.data).toHaveLength(69);
    expect(toHex(ethTransactionVerifiableSignature(tx)).slice(-2)).toBe('01');
    const message = ethTransactionToMessage(tx, SENDER, DEVNET);
    expect(message.to.toString()).toBe('f0100');
    expect(ethTransactionFromSignedMessage({ message, signature }, DEVNET)).toEqual(tx);
  });

  it('TestFailurePaths: a legacy transaction that is no RLP list is refused', () => {
    expect(() =>
      decode(
        '08718301efc58506fc23ac008305161594104994f45d9d697ca104e5704a7b77d7fec3537c890821878651a4d70000801ba051222d91a379452395d0abaff981af4cfcc242f25cfaf947dea8245a477731f9a03a997c910b4701cca5d933fb26064ee5af7fe3236ff0ef2b58aa50b25aff8ca5',
        MAINNET,
      ),
    ).toThrow('unsupported transaction type 0x08');
  });
});

describe('signing payloads agree with ethers', () => {
  const base = {
    nonce: 7n,
    gasLimit: 30_000_000n,
    to: fromHex('52963ef50e27e06d72d59fcb4f3c2a687be3cfef'),
    value: 123456789012345678901234567890n,
    input: fromHex('a9059cbb'),
    v: 0n,
    r: 0n,
    s: 0n,
  };
  const forms: Array<[string, EthTransaction, object]> = [
    [
      'EIP-1559',
      { ...base, type: 2, chainId: DEVNET, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 10n ** 9n },
      { type: 2, chainId: DEVNET, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 10n ** 9n },
    ],
    [
      'EIP-155',
      { ...base, type: 0, chainId: DEVNET, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 10n ** 12n },
      { type: 0, chainId: DEVNET, gasPrice: 10n ** 12n },
    ],
    [
      'homestead',
      { ...base, type: 0, chainId: null, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 10n ** 12n },
      { type: 0, chainId: 0, gasPrice: 10n ** 12n },
    ],
  ];

  it.each(forms)('%s', (_, tx, fees) => {
    const theirs = Transaction.from({
      ...fees,
      nonce: Number(base.nonce),
      gasLimit: base.gasLimit,
      to: hex(base.to),
      value: base.value,
      data: hex(base.input),
    });
    expect(hex(ethTransactionSigningPayload(tx))).toBe(theirs.unsignedSerialized);
  });

  it('a deployment has an empty `to`', () => {
    const tx: EthTransaction = {
      ...base,
      type: 2,
      chainId: DEVNET,
      to: null,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    };
    const theirs = Transaction.from({
      type: 2,
      chainId: DEVNET,
      nonce: 7,
      gasLimit: base.gasLimit,
      value: base.value,
      data: '0xa9059cbb',
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    });
    expect(hex(ethTransactionSigningPayload(tx))).toBe(theirs.unsignedSerialized);
  });
});

describe('malformed raw transactions get errors naming the problem', () => {
  // A valid devnet 1559 transaction (TestEIP1559Signatures' first), edited below.
  const good =
    '02f8598401df5e76028301d69083086a5e835532dd808080c080a0457e33227ac7ceee2ef121755e26b872b6fb04221993f9939349bb7b0a3e1595a02d8ef379e1d2a9e30fa61c92623cc9ed72d80cf6a48cfea341cb916bcc0a81bc';
  const expectRefused = (raw: Uint8Array | string, message: string | RegExp, chainId = DEVNET) =>
    expect(() => decodeSignedEthTransaction(typeof raw === 'string' ? fromHex(raw) : raw, chainId)).toThrow(
      expect.objectContaining({
        name: 'EthTransactionError',
        code: 'ERR_INVALID_ETH_TRANSACTION',
        message: expect.stringMatching(message),
      }),
    );

  it('types, emptiness and size', () => {
    expectRefused('', /empty transaction/);
    expectRefused(`01${good.slice(2)}`, /EIP-2930 transaction is not supported/);
    expectRefused(`03${good.slice(2)}`, /unsupported transaction type 0x03/);
    expectRefused(new Uint8Array((2 << 20) + 1).fill(0xc0), /more than 2097152/);
  });

  it('chain id, v, and the access list', () => {
    expectRefused(good, /chain id 31415926 does not match this network's 314/, MAINNET);
    // v = 2 (…c002a0…): 1559 transactions carry the parity only.
    expectRefused(good.replace('c080a0457e', 'c002a0457e'), /v must be 0 or 1, got 2/);
    // A non-empty access list ([[]] in place of []), with the outer length adjusted.
    expectRefused(
      `02f85a${good.slice(6).replace('808080c080a0457e', '808080c1c080a0457e')}`,
      /access list must be empty/,
    );
  });

  it('non-minimal integers, lengths, item counts and trailing bytes', () => {
    // nonce 0x02 written as 0x820002 (a leading zero byte); outer length +2.
    expectRefused(`02f85b8401df5e76820002${good.slice(18)}`, /nonce has leading zero bytes/);
    // nonce 2 written as the one-byte string 0x8102 instead of the byte itself.
    expectRefused(
      `02f85a8401df5e768102${good.slice(18)}`,
      /nonce: invalid RLP encoding: invalid prefix, single byte < 0x80/,
    );
    // A 19-byte `to`.
    const to19 = decode(good, DEVNET);
    expect(() => encodeSignedEthTransaction({ ...to19, to: new Uint8Array(19) })).toThrow(
      'to is 19 bytes, expected 20',
    );
    expectRefused(`${good}00`, /1 trailing bytes after the RLP list/);
    expectRefused(good.slice(0, -2), /truncated/);
    // Eleven items: drop s (33 bytes) and shorten the list.
    expectRefused(`02f838${good.slice(6, -66)}`, /expected 12 RLP items, got 11/);
    // A legacy transaction with a list where the nonce goes.
    expectRefused('cac0808080808080808080', /nonce is an RLP list, expected a byte string/);
    // Legacy v neither 27/28 nor EIP-155.
    expectRefused('c9808080808080018080', /v 1 is out of range/);
  });

  /** `depth` RLP lists, each holding the next, around an empty one; every length minimal. */
  function nestedLists(depth: number): Uint8Array {
    const headers: number[][] = [];
    let size = 1;
    for (let i = 0; i < depth; i++) {
      const lengthBytes =
        size < 56
          ? []
          : size < 256
            ? [size]
            : size < 65536
              ? [size >> 8, size & 0xff]
              : [size >> 16, (size >> 8) & 0xff, size & 0xff];
      const header = lengthBytes.length === 0 ? [0xc0 + size] : [0xf7 + lengthBytes.length, ...lengthBytes];
      headers.push(header);
      size += header.length;
    }
    return Uint8Array.from([...headers.reverse().flat(), 0xc0]);
  }

  it('a deeply nested list is refused at once, without decoding it', () => {
    // 200,000 nested lists (780 kB) where the nonce goes: @ethereumjs/rlp recurses into them,
    // copying each level, for 15 s here before its stack runs out; the item is refused on its first byte.
    const nested = nestedLists(200_000);
    const header = Uint8Array.of(0xfa, nested.length >> 16, (nested.length >> 8) & 0xff, nested.length & 0xff);
    const started = performance.now();
    expectRefused(concatBytes(header, nested), /nonce is an RLP list, expected a byte string/);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('delegated-signed messages as transactions (lotus eth_transactions_test.go)', () => {
  const from = SENDER;
  const message = (fields: Partial<Message> = {}): Message => ({
    from,
    to: Address.newId(1n),
    value: 10n,
    gasFeeCap: 11n,
    gasPremium: 12n,
    gasLimit: 13n,
    nonce: 14n,
    method: INVOKE_CONTRACT_METHOD,
    params: new Uint8Array(0),
    ...fields,
  });
  const eip1559Sig = { type: SignatureType.Delegated, data: concatBytes(Uint8Array.of(1), new Uint8Array(64)) };
  const legacySig = {
    type: SignatureType.Delegated,
    data: concatBytes(Uint8Array.of(1), new Uint8Array(64), Uint8Array.of(27)),
  };

  it('valid-eip1559 and valid-legacy (TestEthTransactionFromSignedFilecoinMessage)', () => {
    const tx = ethTransactionFromSignedMessage({ message: message(), signature: eip1559Sig }, MAINNET);
    expect(tx).toMatchObject({ type: 2, chainId: MAINNET, value: 10n, maxFeePerGas: 11n, maxPriorityFeePerGas: 12n });
    expect([tx.gasLimit, tx.nonce]).toEqual([13n, 14n]);
    expect(toHex(tx.to as Uint8Array)).toBe('ff00000000000000000000000000000000000001');
    expect(tx.input).toHaveLength(0);
    const legacy = ethTransactionFromSignedMessage({ message: message(), signature: legacySig }, MAINNET);
    expect(legacy).toMatchObject({ type: 0, chainId: null, maxFeePerGas: 11n, maxPriorityFeePerGas: 11n, v: 27n });
  });

  it('refuses what Lotus refuses, saying why', () => {
    const refused = (signed: Parameters<typeof ethTransactionFromSignedMessage>[0], why: string | RegExp) =>
      expect(() => ethTransactionFromSignedMessage(signed, MAINNET)).toThrow(why);
    refused(
      {
        message: message({ to: EAM_ADDRESS, method: CREATE_EXTERNAL_METHOD }),
        signature: { type: SignatureType.Delegated, data: Uint8Array.of(1) },
      },
      'unsupported delegated signature of 1 bytes',
    );
    refused(
      { message: message(), signature: { type: SignatureType.Secp256k1, data: eip1559Sig.data } },
      'is not delegated',
    );
    refused({ message: message({ from: Address.newId(1000n) }), signature: eip1559Sig }, 'is not an Ethereum account');
    refused({ message: message({ method: 0n }), signature: eip1559Sig }, /method 0: only InvokeContract/);
    refused(
      { message: message({ to: EAM_ADDRESS, method: INVOKE_CONTRACT_METHOD }), signature: eip1559Sig },
      /on the EAM/,
    );
    refused(
      {
        message: message({ to: Address.fromString('f15ihq5ibzwki2b4ep2f46avlkrqzhpqgtga7pdrq') }),
        signature: eip1559Sig,
      },
      /recipient: .* has no Ethereum form/,
    );
    // Params: one non-empty CBOR byte string, nothing after it.
    refused({ message: message({ params: fromHex('40') }), signature: eip1559Sig }, 'encode an empty byte string');
    refused(
      { message: message({ params: fromHex('4101ff') }), signature: eip1559Sig },
      'params must be one CBOR byte string',
    );
    refused(
      { message: message({ params: fromHex('01') }), signature: eip1559Sig },
      'params must be one CBOR byte string',
    );
    // v out of range for the form.
    const v2 = { type: SignatureType.Delegated, data: concatBytes(new Uint8Array(64), Uint8Array.of(2)) };
    refused({ message: message(), signature: v2 }, 'v 2 is out of range: expected 0 or 1');
    const v29 = {
      type: SignatureType.Delegated,
      data: concatBytes(Uint8Array.of(1), new Uint8Array(64), Uint8Array.of(29)),
    };
    refused({ message: message(), signature: v29 }, 'v 29 is out of range: expected 27 or 28');
  });

  it('an unsigned message becomes the EIP-1559 transaction a delegated key signs', () => {
    const input = fromHex('cafe');
    const tx = eip1559TransactionFromMessage(message({ params: encodeCbor(input) }), DEVNET);
    expect(tx).toMatchObject({
      type: 2,
      chainId: DEVNET,
      nonce: 14n,
      maxFeePerGas: 11n,
      maxPriorityFeePerGas: 12n,
      v: 0n,
    });
    expect(toHex(tx.input)).toBe('cafe');
    expect(() => eip1559TransactionFromMessage(message({ value: -1n }), DEVNET)).toThrow('Value -1 is negative');
  });
});
