/**
 * The Ethereum JSON-RPC over HTTP on a real chain (SQLite chain store, executed tipsets), the
 * message pool and the Ethereum hash indexer as a node runs them: aliases, quantities, block tags,
 * null rounds, blocks and native messages as transactions, receipts, balances, nonces, fee history
 * and the codecs' refusals.
 */
import { Transaction, Wallet } from 'ethers';
import { ethBlockHash, ethHashOfCid } from '../../src/chain/index.js';
import { nativeCallInput } from '../../src/rpc/eth-chain.js';
import { readBlockParam, readHexData, readQuantity } from '../../src/rpc/eth-codecs.js';
import {
  Address,
  cidToLotusJson,
  encodeCbor,
  ethAddressFromAddress,
  INVOKE_CONTRACT_METHOD,
  parseRawEthTransaction,
  type SignedMessage,
  setDefaultNetwork,
  signedMessageCid,
  signedMessageToLotusJson,
  type TipSet,
} from '../../src/types/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { call } from './harness.js';

const { alice } = keys;
/** An Ethereum account nobody holds a key of in this test: value sent to it creates a placeholder. */
const RECIPIENT = '0x52908400098527886e0f7030069857d2e4169ee7';
const recipient = Address.newDelegated(10n, Buffer.from(RECIPIENT.slice(2), 'hex'));

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;

beforeEach(async () => {
  s = await startChainServer({ mpool: true, eth: true });
});
afterEach(async () => {
  await s.close();
  setDefaultNetwork('f');
});

async function rpc(method: string, params: unknown[] = [], perm?: 'write'): Promise<Json> {
  const headers: Record<string, string> =
    perm === undefined ? {} : { authorization: `Bearer ${await s.tokens.create(['read', perm])}` };
  return call(s.url(1), method, params, headers) as Promise<Json>;
}

async function result<T = Json>(method: string, params: unknown[] = [], perm?: 'write'): Promise<T> {
  const answer = await rpc(method, params, perm);
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result as T;
}

const hex = (bytes: Uint8Array) => `0x${toHex(bytes)}`;
const toRecipient = (nonce: bigint, value = FIL): SignedMessage =>
  signSecp(alice, message({ from: alice.address, to: recipient, value, nonce }));

/** Mines `count` empty tipsets on the head; returns the last. */
async function mineEmpty(count: number): Promise<TipSet> {
  let tipSet = s.t.chain.head();
  for (let i = 0; i < count; i++) tipSet = await s.t.mine();
  return tipSet;
}

describe('codecs', () => {
  test('quantities, data and block parameters decode strictly, naming the parameter', () => {
    expect(readQuantity('0x1a', 'n')).toBe(26n);
    expect(readQuantity('0x00ff', 'n')).toBe(255n);
    expect(() => readQuantity('26', 'n')).toThrow('n: expected a hex quantity ("0x…"), got "26"');
    expect(() => readQuantity(26, 'n')).toThrow('n: expected a hex quantity');
    expect(readHexData('0xabc', 'd')).toEqual(Uint8Array.of(0x0a, 0xbc));
    expect(() => readHexData('0x12', 'a', 20)).toThrow('a: expected 20 bytes of hex');
    expect(readBlockParam('latest', 'b')).toEqual({ kind: 'tag', tag: 'latest' });
    expect(readBlockParam('0x10', 'b')).toEqual({ kind: 'number', height: 16n });
    expect(readBlockParam({ blockNumber: '0x2' }, 'b')).toEqual({ kind: 'number', height: 2n });
    const hash = `0x${'ab'.repeat(32)}`;
    expect(readBlockParam({ blockHash: hash, requireCanonical: true }, 'b')).toMatchObject({
      kind: 'hash',
      requireCanonical: true,
    });
    expect(() => readBlockParam('newest', 'b')).toThrow('b: expected a block tag');
    expect(() => readBlockParam({ blockHash: hash, blockNumber: '0x1' }, 'b')).toThrow('not both');
  });

  test("a native message's input is handle_filecoin_method's ABI: selector, method, codec, offset, length, padded params", () => {
    const input = nativeCallInput(2n, Uint8Array.of(0x81, 0x01));
    expect(input.length).toBe(4 + 5 * 32);
    expect(toHex(input.subarray(0, 4))).toBe('868e10c4');
    const words = Array.from({ length: 5 }, (_, i) => toHex(input.subarray(4 + i * 32, 4 + (i + 1) * 32)));
    expect(words[0]).toBe(`${'0'.repeat(62)}02`);
    expect(words[1]).toBe(`${'0'.repeat(62)}51`);
    expect(words[2]).toBe(`${'0'.repeat(62)}60`);
    expect(words[3]).toBe(`${'0'.repeat(62)}02`);
    expect(words[4]).toBe(`8101${'0'.repeat(60)}`);
    expect(nativeCallInput(0n, new Uint8Array(0)).length).toBe(4 + 4 * 32);
  });
});

describe('the node and the chain', () => {
  test('chain id, net_version, client version, accounts and syncing answer under eth_* and Filecoin.Eth* names', async () => {
    expect(await result('eth_chainId')).toBe('0x1df5e76');
    expect(await result('Filecoin.EthChainId')).toBe('0x1df5e76');
    expect(await result('Ledger.EthChainId')).toBe('0x1df5e76');
    expect(await result('net_version')).toBe('31415926');
    expect(await result('web3_clientVersion')).toBe('0.1.0+devnet');
    expect(await result('eth_accounts')).toEqual([]);
    expect(await result('eth_syncing')).toBe(false);
    // Lotus serves the Ethereum methods on v1 only.
    expect((await call(s.url(0), 'eth_chainId', [])).error?.code).toBe(-32601);
  });

  test('eth_blockNumber is the head parent; latest, pending, safe, earliest and numbers pick tipsets as Lotus', async () => {
    expect(await result('eth_blockNumber')).toBe('0x0');
    const head = await mineEmpty(4);
    expect(await result('eth_blockNumber')).toBe('0x3');
    expect((await result('eth_getBlockByNumber', ['latest', false])).number).toBe('0x3');
    const pending = await result('eth_getBlockByNumber', ['pending', false]);
    expect(pending.number).toBe('0x4');
    expect(pending.hash).toBe(hex(ethBlockHash(head)));
    expect((await result('eth_getBlockByNumber', ['safe', false])).number).toBe('0x0');
    expect((await result('eth_getBlockByNumber', ['0x2', false])).number).toBe('0x2');
    expect(await rpc('eth_getBlockByNumber', ['earliest', false])).toMatchObject({
      error: { code: 1, message: 'block param "earliest" is not supported' },
    });
    expect(await rpc('eth_getBlockByNumber', ['0x4', false])).toMatchObject({
      error: { code: 1, message: "requested a future epoch (beyond 'latest')" },
    });
  });

  test('a null round is error 12 for blocks and the tipset before it for state', async () => {
    await mineEmpty(1);
    await s.t.mine([{}], { height: 3n });
    await s.t.mine();
    expect(await rpc('eth_getBlockByNumber', ['0x2', false])).toMatchObject({
      error: { code: 12, message: 'requested epoch was a null round (2)', data: 2 },
    });
    expect((await rpc('eth_getBlockTransactionCountByNumber', ['0x2'])).error.code).toBe(12);
    expect((await rpc('eth_getBlockReceipts', ['0x2'])).error.code).toBe(12);
    expect(await result('eth_getBalance', [RECIPIENT, '0x2'])).toBe('0x0');
  });

  test('a block: Lotus constants, tipset-key hashes, parent hash, gas limit per block; by hash as by number', async () => {
    const [, second] = [await s.t.mine(), await s.t.mine()];
    await s.t.mine();
    const block = await result('eth_getBlockByNumber', ['0x2', false]);
    expect(block).toMatchObject({
      hash: hex(ethBlockHash(second)),
      parentHash: hex(ethHashOfCid(second.parents.cid())),
      number: '0x2',
      miner: `0x${'00'.repeat(20)}`,
      gasLimit: '0x2540be400',
      gasUsed: '0x0',
      transactions: [],
      transactionsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
      nonce: '0x0000000000000000',
      extraData: '0x',
      uncles: [],
      baseFeePerGas: `0x${second.parentBaseFee.toString(16)}`,
      timestamp: `0x${second.blocks[0]!.timestamp.toString(16)}`,
    });
    // The indexed bloom of its (no) logs, as Lotus answers an indexed tipset's (all ones only for one not indexed).
    expect(block.logsBloom).toBe(`0x${'00'.repeat(256)}`);
    expect(await result('eth_getBlockByHash', [block.hash, false])).toEqual(block);
    expect(await result('eth_getBlockTransactionCountByHash', [block.hash])).toBe('0x0');
    expect(await rpc('eth_getBlockByHash', [`0x${'00'.repeat(32)}`, false])).toMatchObject({
      error: { code: 1, message: `cannot find tipset with hash 0x${'00'.repeat(32)}` },
    });
  });
});

describe('native messages as transactions', () => {
  test('pending with null block fields, then mined; the receipt is null until the next tipset executes it', async () => {
    const signed = toRecipient(0n);
    await s.mpool!.pool.push(signed);
    const hash = hex(ethHashOfCid(signedMessageCid(signed)));
    const aliceId = (await result<string>('Filecoin.StateLookupID', [alice.address.toString(), null])).slice(2);
    const aliceEth = ethAddressFromAddress(Address.newId(BigInt(aliceId)));

    const pending = await result('eth_getTransactionByHash', [hash]);
    expect(pending).toMatchObject({
      hash,
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      from: aliceEth,
      to: RECIPIENT,
      value: '0xde0b6b3a7640000',
      type: '0x2',
      chainId: '0x1df5e76',
      nonce: '0x0',
      gas: '0x989680',
      maxFeePerGas: '0xbebc200',
      maxPriorityFeePerGas: '0x186a0',
      accessList: [],
      v: '0x0',
      r: '0x0',
      s: '0x0',
    });
    expect(pending.input).toBe(hex(nativeCallInput(0n, new Uint8Array(0))));
    const cid = cidToLotusJson(signedMessageCid(signed));
    expect(await result('Filecoin.EthGetTransactionHashByCid', [cid])).toBe(hash);
    expect(await result('Filecoin.EthGetMessageCidByTransactionHash', [hash])).toEqual(cid);
    expect(await result('Filecoin.EthGetMessageCidByTransactionHash', [`0x${'11'.repeat(32)}`])).toBeNull();
    expect(await result('eth_getTransactionReceipt', [hash])).toBeNull();
    expect(await result('eth_getTransactionCount', [aliceEth, 'pending'])).toBe('0x1');
    expect(await result('eth_getTransactionCount', [aliceEth, 'latest'])).toBe('0x0');

    const included = await s.t.mine([{ secp: [signed] }]);
    // Included in the head, not executed: found, with its block, but no receipt yet.
    expect(await result('eth_getTransactionByHash', [hash])).toMatchObject({ blockNumber: '0x1' });
    expect(await result('eth_getTransactionReceipt', [hash])).toBeNull();

    await s.t.mine();
    const mined = await result('eth_getTransactionByHash', [hash]);
    expect(mined).toMatchObject({
      hash,
      blockHash: hex(ethBlockHash(included)),
      blockNumber: '0x1',
      transactionIndex: '0x0',
    });
    const receipt = await result('eth_getTransactionReceipt', [hash]);
    expect(receipt).toMatchObject({
      transactionHash: hash,
      transactionIndex: '0x0',
      blockHash: hex(ethBlockHash(included)),
      blockNumber: '0x1',
      from: aliceEth,
      to: RECIPIENT,
      status: '0x1',
      contractAddress: null,
      cumulativeGasUsed: '0x0',
      logs: [],
      logsBloom: `0x${'00'.repeat(256)}`,
      type: '0x2',
      root: `0x${'00'.repeat(32)}`,
    });
    expect(BigInt(receipt.gasUsed)).toBeGreaterThan(0n);
    expect(BigInt(receipt.effectiveGasPrice)).toBeGreaterThanOrEqual(included.parentBaseFee);

    const block = await result('eth_getBlockByNumber', ['0x1', true]);
    expect(block.transactions).toEqual([mined]);
    expect(block.gasUsed).toBe(receipt.gasUsed);
    expect((await result('eth_getBlockByNumber', ['0x1', false])).transactions).toEqual([hash]);
    expect(await result('eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x1');
    expect(await result('eth_getBlockReceipts', ['0x1'])).toEqual([receipt]);
    expect(await result('eth_getBlockReceipts', [{ blockHash: receipt.blockHash }])).toEqual([receipt]);
    expect(await result('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0'])).toEqual(mined);
    expect(await result('eth_getTransactionByBlockHashAndIndex', [receipt.blockHash, '0x0'])).toEqual(mined);
    expect(await rpc('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x1'])).toMatchObject({
      error: { code: 1, message: 'index 1 out of range: tipset contains 1 messages' },
    });
    expect(await result('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0xde0b6b3a7640000');
    expect(await result('eth_getBalance', [RECIPIENT, '0x0'])).toBe('0x0');
    expect(await result('eth_getTransactionCount', [aliceEth, 'latest'])).toBe('0x1');
    expect(await result('eth_getCode', [RECIPIENT, 'latest'])).toBe('0x');
  });

  test('an InvokeContract message from an f1 account shows its calldata as input', async () => {
    const signed = signSecp(
      alice,
      message({
        from: alice.address,
        to: recipient,
        method: INVOKE_CONTRACT_METHOD,
        params: encodeCbor(Uint8Array.of(1, 2, 3)),
      }),
    );
    await s.mpool!.pool.push(signed);
    const tx = await result('eth_getTransactionByHash', [hex(ethHashOfCid(signedMessageCid(signed)))]);
    expect(tx).toMatchObject({ input: '0x010203', to: RECIPIENT });
  });

  test('an unknown hash is null; a bad hash is refused naming the parameter', async () => {
    expect(await result('eth_getTransactionByHash', [`0x${'11'.repeat(32)}`])).toBeNull();
    expect(await result('eth_getTransactionReceipt', [`0x${'11'.repeat(32)}`])).toBeNull();
    expect(await rpc('eth_getTransactionByHash', ['0x1234'])).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('txHash: expected 32 bytes of hex') },
    });
    expect(await rpc('eth_getBalance', ['0x12', 'latest'])).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('address: expected 20 bytes of hex') },
    });
    expect((await rpc('eth_getBalance', [RECIPIENT])).error.code).toBe(-32602);
  });
});

describe('Ethereum transactions', () => {
  const CHAIN_ID = 31415926;
  const sender = new Wallet(`0x${'42'.repeat(32)}`);
  const signTransfer = (nonce: number, value = 1000n) =>
    sender.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce,
      to: RECIPIENT,
      value,
      gasLimit: 10_000_000n,
      maxFeePerGas: 1_000_000_000n,
      maxPriorityFeePerGas: 100_000n,
    });

  /** Funds the sender's f410 address from alice (its placeholder is created) and executes the transfer. */
  async function fundSender(): Promise<void> {
    const to = Address.newDelegated(10n, Buffer.from(sender.address.slice(2), 'hex'));
    await s.t.mine([{ secp: [signSecp(alice, message({ from: alice.address, to, value: 10n * FIL }))] }]);
    await s.t.mine();
  }

  test('eth_sendRawTransaction pushes a signed EIP-1559 transaction; found pending, then mined with its receipt', async () => {
    await fundSender();
    const raw = await signTransfer(0);
    const hash = await result<string>('eth_sendRawTransaction', [raw]);
    expect(hash).toBe(Transaction.from(raw).hash);
    const pending = await result('eth_getTransactionByHash', [hash]);
    const signed = Transaction.from(raw);
    expect(pending).toMatchObject({
      hash,
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      from: sender.address.toLowerCase(),
      to: RECIPIENT,
      value: '0x3e8',
      type: '0x2',
      chainId: '0x1df5e76',
      nonce: '0x0',
      gas: '0x989680',
      maxFeePerGas: '0x3b9aca00',
      maxPriorityFeePerGas: '0x186a0',
      input: '0x',
      v: `0x${signed.signature!.yParity.toString(16)}`,
      r: `0x${BigInt(signed.signature!.r).toString(16)}`,
      s: `0x${BigInt(signed.signature!.s).toString(16)}`,
    });
    expect(await result('eth_getTransactionReceipt', [hash])).toBeNull();
    expect(await result('eth_getTransactionCount', [sender.address, 'pending'])).toBe('0x1');

    const [inPool] = s.mpool!.pool.pending();
    const cid = cidToLotusJson(signedMessageCid(inPool!));
    expect(await result('Filecoin.EthGetMessageCidByTransactionHash', [hash])).toEqual(cid);
    expect(await result('Filecoin.EthGetTransactionHashByCid', [cid])).toBe(hash);
    const included = await s.t.mine([{ secp: [inPool!] }]);
    await s.t.mine();
    const receipt = await result('eth_getTransactionReceipt', [hash]);
    expect(receipt).toMatchObject({
      transactionHash: hash,
      blockHash: hex(ethBlockHash(included)),
      from: sender.address.toLowerCase(),
      to: RECIPIENT,
      status: '0x1',
      type: '0x2',
    });
    expect(BigInt(receipt.effectiveGasPrice)).toBeGreaterThan(0n);
    expect(await result('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0x3e8');
    expect(await result('eth_getTransactionCount', [sender.address, 'latest'])).toBe('0x1');
    expect((await result('eth_getBlockByHash', [receipt.blockHash, false])).transactions).toEqual([hash]);
  });

  test('a transaction the node only saw in a block (as a syncing node does) is found by its hash', async () => {
    await fundSender();
    const raw = await signTransfer(0, 7n);
    const { signed, hash } = parseRawEthTransaction(Buffer.from(raw.slice(2), 'hex'), CHAIN_ID);
    await s.t.mine([{ secp: [signed] }]);
    await s.t.mine();
    const receipt = await result('eth_getTransactionReceipt', [hex(hash)]);
    expect(receipt).toMatchObject({ transactionHash: hex(hash), status: '0x1' });
  });

  test('a delegated message pushed to the pool as a Filecoin message (MpoolPush) is found by its Ethereum hash', async () => {
    await fundSender();
    const raw = await signTransfer(0, 5n);
    const { signed, hash } = parseRawEthTransaction(Buffer.from(raw.slice(2), 'hex'), CHAIN_ID);
    await result('Filecoin.MpoolPush', [signedMessageToLotusJson(signed)], 'write');
    expect(await result('eth_getTransactionByHash', [hex(hash)])).toMatchObject({
      hash: hex(hash),
      blockNumber: null,
      from: sender.address.toLowerCase(),
    });
  });

  test('a transaction for another chain or with bad bytes is refused with the reason', async () => {
    const otherChain = await sender.signTransaction({ type: 2, chainId: 314, nonce: 0, to: RECIPIENT, gasLimit: 1n });
    expect((await rpc('eth_sendRawTransaction', [otherChain])).error).toMatchObject({
      code: 1,
      message: expect.stringContaining('chain'),
    });
    expect((await rpc('eth_sendRawTransaction', ['0x01c0'])).error.code).toBe(1);
    expect((await rpc('eth_sendRawTransaction', ['nothex'])).error.code).toBe(-32602);
  });
});

describe('gas and fees', () => {
  test('gas price is the base fee plus the premium; fee history has one more base fee, the newest repeated', async () => {
    const signed = toRecipient(0n);
    await s.t.mine([{ secp: [signed] }]);
    await mineEmpty(2);
    const head = s.t.chain.head();
    const premium = BigInt(await result('eth_maxPriorityFeePerGas'));
    // Lotus's minimum premium (100,000 attoFIL) with its ±1 % noise.
    expect(premium).toBeGreaterThan(95_000n);
    expect(BigInt(await result('eth_gasPrice'))).toBeGreaterThan(head.parentBaseFee);

    const history = await result('eth_feeHistory', ['0x2', 'latest', [25, 75]]);
    expect(history.oldestBlock).toBe('0x1');
    expect(history.baseFeePerGas).toHaveLength(3);
    expect(history.baseFeePerGas[2]).toBe(history.baseFeePerGas[1]);
    expect(history.gasUsedRatio).toHaveLength(2);
    expect(history.gasUsedRatio[0]).toBeGreaterThan(0);
    expect(history.gasUsedRatio[1]).toBe(0);
    expect(history.reward).toEqual([
      ['0x186a0', '0x186a0'],
      ['0x186a0', '0x186a0'],
    ]);
    expect((await result('eth_feeHistory', ['0x1', 'latest'])).reward).toBeUndefined();
    expect((await rpc('eth_feeHistory', ['0x401', 'latest'])).error.message).toBe(
      'block count should be smaller than 1024',
    );
    expect((await rpc('eth_feeHistory', ['0x1', 'latest', [50, 10]])).error.message).toContain(
      'invalid reward percentile: 10 should be larger than 50',
    );
  });

  test('eth_estimateGas executes a transfer to an Ethereum address from an account', async () => {
    const aliceId = (await result<string>('Filecoin.StateLookupID', [alice.address.toString(), null])).slice(2);
    const from = ethAddressFromAddress(Address.newId(BigInt(aliceId)));
    const gas = BigInt(await result('eth_estimateGas', [{ from, to: RECIPIENT, value: '0x1' }]));
    expect(gas).toBeGreaterThan(0n);
    expect(gas).toBeLessThan(10_000_000_000n);
  });
});

describe('addresses', () => {
  test('Ethereum ↔ Filecoin address conversion', async () => {
    expect(await result('Filecoin.EthAddressToFilecoinAddress', [RECIPIENT])).toBe(recipient.toString());
    expect(await result('Filecoin.EthAddressToFilecoinAddress', ['0xff00000000000000000000000000000000000064'])).toBe(
      't0100',
    );
    expect(await result('Filecoin.FilecoinAddressToEthAddress', [recipient.toString()])).toBe(RECIPIENT);
    expect(await result('Filecoin.FilecoinAddressToEthAddress', ['t0100', null])).toBe(
      '0xff00000000000000000000000000000000000064',
    );
    const aliceId = await result<string>('Filecoin.StateLookupID', [alice.address.toString(), null]);
    expect(await result('Filecoin.FilecoinAddressToEthAddress', [alice.address.toString(), 'latest'])).toBe(
      ethAddressFromAddress(Address.newId(BigInt(aliceId.slice(2)))),
    );
  });
});
