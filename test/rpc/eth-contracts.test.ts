/**
 * The Ethereum JSON-RPC for contracts on a real chain (SQLite chain store, executed tipsets, the
 * EVM actor running solc-compiled Solidity, the log index and the eth events as a node runs them):
 * receipts' logs and blooms, eth_getLogs and its limits, eth_call / eth_getCode /
 * eth_getStorageAt, revert errors as ethers v6 and viem decode them, eth_estimateGas, filters, and
 * eth_subscribe over WebSocket with geth's notifications.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { Contract, Interface, JsonRpcProvider, Network } from 'ethers';
import { createPublicClient, http, type PublicClient } from 'viem';
import { WebSocket } from 'ws';
import { ethBlockHash, ethHashOfCid } from '../../src/chain/index.js';
import { keccak256 } from '../../src/crypto/index.js';
import { EthEvents, EthFilters } from '../../src/rpc/index.js';
import {
  type Address,
  addressFromEthAddress,
  CREATE_EXTERNAL_METHOD,
  EAM_ADDRESS,
  encodeCbor,
  INVOKE_CONTRACT_METHOD,
  type SignedMessage,
  setDefaultNetwork,
  signedMessageCid,
  type TipSet,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { closeEvmWorker } from '../../src/vm/evm/interpreter.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { compileCounter, compileRelay } from '../helpers/counter-contract.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { call } from './harness.js';

const { alice } = keys;

const counter = compileCounter();
const relay = compileRelay();
const relayAbi = new Interface(relay.abi as never);
const abi = new Interface(counter.abi as never);
const INCREMENTED = abi.getEvent('Incremented')!.topicHash;

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;
let nonce: bigint;

afterAll(() => closeEvmWorker());
beforeEach(async () => {
  s = await startChainServer({ mpool: true, eth: true, chain: { beaconEveryEpoch: true } });
  nonce = 0n;
});
afterEach(async () => {
  await s.close();
  setDefaultNetwork('f');
});

async function rpc(method: string, params: unknown[] = []): Promise<Json> {
  return call(s.url(1), method, params) as Promise<Json>;
}

async function result<T = Json>(method: string, params: unknown[] = []): Promise<T> {
  const answer = await rpc(method, params);
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result as T;
}

const hex = (bytes: Uint8Array) => `0x${toHex(bytes)}`;
const txHash = (signed: SignedMessage) => hex(ethHashOfCid(signedMessageCid(signed)));

/** A message from alice (an f1 account), signed, with the next nonce. */
function fromAlice(to: Address, method: bigint, params: Uint8Array): SignedMessage {
  return signSecp(
    alice,
    message({ from: alice.address, to, method, params, nonce: nonce++, gasLimit: 2_000_000_000n }),
  );
}

/** Deploys the Counter from alice and executes it; answers its address and the deploy's receipt. */
async function deploy(): Promise<{ address: string; receipt: Json }> {
  const signed = fromAlice(EAM_ADDRESS, CREATE_EXTERNAL_METHOD, encodeCbor(counter.bytecode));
  await s.t.mine([{ secp: [signed] }]);
  await s.t.mine();
  const receipt = await result('eth_getTransactionReceipt', [txHash(signed)]);
  expect(receipt).toMatchObject({ status: '0x1', to: null });
  expect(receipt.contractAddress).toMatch(/^0x[0-9a-f]{40}$/);
  return { address: receipt.contractAddress, receipt };
}

const invoke = (address: string, data: string) =>
  fromAlice(addressFromEthAddress(address), INVOKE_CONTRACT_METHOD, encodeCbor(fromHex(data.slice(2))));
const increment = (address: string, note: string) => invoke(address, abi.encodeFunctionData('increment', [note]));

/** Whether a 256-byte bloom has the three bits of `value` (EIP-1559 / Lotus `EthBloomSet`). */
function bloomHas(bloomHex: string, value: string): boolean {
  const bloom = fromHex(bloomHex.slice(2));
  const hash = keccak256(fromHex(value.slice(2)));
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i]! << 8) | hash[i + 1]!) % 2048;
    if ((bloom[255 - (bit >> 3)]! & (1 << (bit % 8))) === 0) return false;
  }
  return true;
}

const topicOf = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`;

/** Deploys, then two increments in one block and one in the next, all executed. */
async function withLogs(): Promise<{ address: string; first: TipSet; second: TipSet; hashes: string[] }> {
  const { address } = await deploy();
  const a = increment(address, 'one');
  const b = increment(address, 'two');
  const first = await s.t.mine([{ secp: [a, b] }]);
  const c = increment(address, 'three');
  const second = await s.t.mine([{ secp: [c] }]);
  await s.t.mine();
  return { address, first, second, hashes: [txHash(a), txHash(b), txHash(c)] };
}

describe('logs', () => {
  test('receipts carry their logs with block-wide log indexes and a real bloom; eth_getLogs answers the same logs', async () => {
    const { address, first, second, hashes } = await withLogs();
    const receipts = await Promise.all(hashes.map((hash) => result('eth_getTransactionReceipt', [hash])));
    const aliceEth = receipts[0]!.from;
    expect(receipts[1]!.logs).toEqual([
      {
        address,
        data: abi.encodeEventLog('Incremented', [aliceEth, 2n, 'two']).data,
        topics: [INCREMENTED, topicOf(BigInt(aliceEth)), topicOf(2n)],
        removed: false,
        logIndex: '0x1',
        transactionIndex: '0x1',
        transactionHash: hashes[1],
        blockHash: hex(ethBlockHash(first)),
        blockNumber: `0x${first.height.toString(16)}`,
      },
    ]);
    expect(receipts[0]!.logs[0].logIndex).toBe('0x0');
    expect(receipts[2]!.logs[0]).toMatchObject({ logIndex: '0x0', blockHash: hex(ethBlockHash(second)) });
    for (const receipt of receipts) {
      expect(receipt.logsBloom).toHaveLength(2 + 512);
      expect(bloomHas(receipt.logsBloom, address)).toBe(true);
      expect(bloomHas(receipt.logsBloom, INCREMENTED)).toBe(true);
    }
    expect(bloomHas(receipts[0]!.logsBloom, topicOf(2n))).toBe(false);
    const block = await result('eth_getBlockByHash', [hex(ethBlockHash(first)), false]);
    expect(bloomHas(block.logsBloom, topicOf(1n)) && bloomHas(block.logsBloom, topicOf(2n))).toBe(true);
    expect(bloomHas(block.logsBloom, topicOf(3n))).toBe(false);

    const all = await result<Json[]>('eth_getLogs', [{ fromBlock: '0x0', address }]);
    expect(all).toEqual(receipts.flatMap((receipt) => receipt.logs));
    expect(await result('eth_getLogs', [{ blockHash: hex(ethBlockHash(first)) }])).toEqual(all.slice(0, 2));
    // Topic positions: null is any, a list is OR; the address may be a list.
    expect(
      await result('eth_getLogs', [{ fromBlock: '0x0', topics: [null, null, [topicOf(1n), topicOf(3n)]] }]),
    ).toEqual([all[0], all[2]]);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', topics: [INCREMENTED, null, topicOf(2n)] }])).toEqual([
      all[1],
    ]);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', address: [`0x${'11'.repeat(20)}`, address] }])).toEqual(
      all,
    );
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', address: `0x${'11'.repeat(20)}` }])).toEqual([]);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', topics: [topicOf(9n)] }])).toEqual([]);
    // The default range is the latest block: the head's parent, the one with the third log.
    expect(await result('eth_getLogs', [{}])).toEqual([all[2]]);
  });

  test('eth_getLogs refuses what Lotus refuses: wide ranges (-32005), blocks not executed yet, 5 topics, hash with range', async () => {
    await s.t.mine();
    await s.t.mine();
    expect((await rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xb41' }])).error).toEqual({
      code: -32005,
      message: 'block range exceeds maximum of 2880 (got 2881)',
    });
    expect((await rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2' }])).error.message).toBe(
      'events for the requested block are not yet available',
    );
    expect((await rpc('eth_getLogs', [{ fromBlock: '0x2' }])).error.message).toBe(
      'events for the requested block are not yet available',
    );
    expect((await rpc('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x0' }])).error.message).toBe(
      'invalid epoch range: to block (0) must be after from block (1)',
    );
    expect((await rpc('eth_getLogs', [{ topics: [null, null, null, null, null] }])).error.message).toBe(
      'too many topics in filter: 5, max: 4',
    );
    expect((await rpc('eth_getLogs', [{ fromBlock: 'pending' }])).error.message).toBe('FromBlock is not a hex');
    expect((await rpc('eth_getLogs', [{ blockHash: `0x${'00'.repeat(32)}`, fromBlock: '0x0' }])).error.message).toBe(
      'must not specify block hash and from/to block',
    );
    expect((await rpc('eth_getLogs', [{ address: '0x12' }])).error.code).toBe(-32602);
  });
});

describe('calls', () => {
  test('eth_call, eth_getCode and eth_getStorageAt read the contract after the block; a revert is error 3 with its data', async () => {
    const { address } = await withLogs();
    const count = await result<string>('eth_call', [{ to: address, data: abi.encodeFunctionData('count') }, 'latest']);
    expect(BigInt(count)).toBe(3n);
    const code = await result<string>('eth_getCode', [address, 'latest']);
    expect(code.length).toBeGreaterThan(100);
    expect(counter.bytecode.length * 2 + 2).toBeGreaterThan(code.length);
    expect(await result('eth_getStorageAt', [address, '0x0', 'latest'])).toBe(topicOf(3n));
    expect(await result('eth_getStorageAt', [address, '0x01', 'latest'])).toBe(topicOf(0n));
    // Not contracts: no code, zero storage.
    expect(await result('eth_getCode', [`0x${'22'.repeat(20)}`, 'latest'])).toBe('0x');
    expect(await result('eth_getStorageAt', [`0x${'22'.repeat(20)}`, '0x0', 'latest'])).toBe(topicOf(0n));

    const reverted = await rpc('eth_call', [{ to: address, data: abi.encodeFunctionData('fail') }, 'latest']);
    expect(reverted.error).toEqual({
      code: 3,
      message: 'execution reverted: counter: nope',
      data: abi.encodeErrorResult('Error', ['counter: nope']),
    });
    expect((await rpc('eth_call', [{ to: address, data: '0x' }, 'latest', 'extra'])).error.code).toBe(-32602);
    expect(
      (await rpc('eth_call', [{ from: '0xff00000000000000000000000000000000000064', to: address }, 'latest'])).error
        .message,
    ).toContain('expected a class 4 address');
  });

  test('ethers v6 and viem decode the revert reason', async () => {
    const { address } = await deploy();
    const provider = new JsonRpcProvider(s.url(1), Network.from(31415926), { staticNetwork: true });
    const contract = new Contract(address, counter.abi as never, provider);
    await expect(contract.getFunction('fail').staticCall()).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'counter: nope',
    });
    provider.destroy();
    const client = createPublicClient({ transport: http(s.url(1)) }) as PublicClient;
    const error = await client
      .readContract({ address: address as `0x${string}`, abi: counter.abi as never, functionName: 'fail' })
      .catch((e: unknown) => e as Error & { walk: (fn: (e: unknown) => boolean) => unknown });
    const reverted = (error as { walk: (fn: (e: unknown) => boolean) => unknown }).walk(
      (e) => (e as { name?: string }).name === 'ContractFunctionRevertedError',
    ) as { reason?: string } | null;
    expect(reverted?.reason).toBe('counter: nope');
  });

  test('eth_estimateGas executes the call and gives a limit that is enough', async () => {
    const { address } = await deploy();
    const data = abi.encodeFunctionData('burn', [200n]);
    const gas = BigInt(await result('eth_estimateGas', [{ to: address, data }]));
    expect(gas).toBeGreaterThan(0n);
    const signed = signSecp(
      alice,
      message({
        from: alice.address,
        to: addressFromEthAddress(address),
        method: INVOKE_CONTRACT_METHOD,
        params: encodeCbor(fromHex(data.slice(2))),
        nonce: nonce++,
        gasLimit: gas,
      }),
    );
    await s.t.mine([{ secp: [signed] }]);
    await s.t.mine();
    expect(await result('eth_getTransactionReceipt', [txHash(signed)])).toMatchObject({ status: '0x1' });
    expect((await rpc('eth_estimateGas', [{ to: address, data: abi.encodeFunctionData('fail') }])).error).toMatchObject(
      { code: 3, message: 'execution reverted: counter: nope' },
    );
  });
});

test('eth_estimateGas searches upward when a nested call runs out of gas with the plain estimate', async () => {
  const { address } = await deploy();
  const deployRelay = fromAlice(EAM_ADDRESS, CREATE_EXTERNAL_METHOD, encodeCbor(relay.bytecode));
  await s.t.mine([{ secp: [deployRelay] }]);
  await s.t.mine();
  const relayAddress = (await result('eth_getTransactionReceipt', [txHash(deployRelay)])).contractAddress as string;
  const data = relayAbi.encodeFunctionData('burnWithHalf', [address, 300n]);
  const gas = BigInt(await result('eth_estimateGas', [{ to: relayAddress, data }]));
  const withLimit = (gasLimit: bigint) =>
    signSecp(
      alice,
      message({
        from: alice.address,
        to: addressFromEthAddress(relayAddress),
        method: INVOKE_CONTRACT_METHOD,
        params: encodeCbor(fromHex(data.slice(2))),
        nonce: nonce++,
        gasLimit,
      }),
    );
  // The pool's own estimate (gas used × 1.25) is not enough: the nested call runs out of gas.
  const probe = withLimit(0n).message;
  nonce--;
  const used = (await s.mpool!.gas.estimateMessageGas({ ...probe, gasFeeCap: 0n, gasPremium: 0n }, undefined)).gasLimit;
  expect(gas).toBeGreaterThan(used);
  const short = withLimit(used);
  const enough = withLimit(gas);
  await s.t.mine([{ secp: [short, enough] }]);
  await s.t.mine();
  expect(await result('eth_getTransactionReceipt', [txHash(short)])).toMatchObject({ status: '0x0' });
  expect(await result('eth_getTransactionReceipt', [txHash(enough)])).toMatchObject({ status: '0x1' });
});

describe('filters', () => {
  test('log, block and pending-transaction filters collect what came since the last poll', async () => {
    const { address } = await deploy();
    const logs = await result<string>('eth_newFilter', [{ address }]);
    const blocks = await result<string>('eth_newBlockFilter');
    const pending = await result<string>('eth_newPendingTransactionFilter');
    expect(logs).toMatch(/^0x[0-9a-f]{64}$/);
    const signed = increment(address, 'filtered');
    await s.mpool!.pool.push(signed);
    expect(await result('eth_getFilterChanges', [pending])).toEqual([txHash(signed)]);
    expect(await result('eth_getFilterChanges', [pending])).toEqual([]);
    const included = await s.t.mine([{ secp: [signed] }]);
    const executing = await s.t.mine();
    const changes = await result<Json[]>('eth_getFilterLogs', [logs]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ address, transactionHash: txHash(signed), removed: false });
    expect(await result('eth_getFilterChanges', [logs])).toEqual([]);
    expect(await result('eth_getFilterChanges', [blocks])).toEqual([
      hex(ethBlockHash(included)),
      hex(ethBlockHash(executing)),
    ]);
    expect((await rpc('eth_getFilterLogs', [blocks])).error.message).toBe('wrong filter type');
    expect(await result('eth_uninstallFilter', [logs])).toBe(true);
    expect(await result('eth_uninstallFilter', [logs])).toBe(false);
    expect((await rpc('eth_getFilterChanges', [logs])).error.message).toBe('filter not found');
  });

  test('a reorg that drops the block with the logs gives them again with removed: true; eth_getLogs keeps to the canonical chain', async () => {
    const { address } = await deploy();
    const forkPoint = s.t.chain.head();
    const id = await result<string>('eth_newFilter', [{ address }]);
    const signed = increment(address, 'reorged');
    await s.t.mine([{ secp: [signed] }]);
    await s.t.mine();
    const before = await result<Json[]>('eth_getFilterChanges', [id]);
    expect(before).toEqual([expect.objectContaining({ removed: false, transactionHash: txHash(signed) })]);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', address }])).toEqual(before);
    // A longer branch from before the inclusion, without the message.
    let tip = forkPoint;
    for (let i = 0; i < 3; i++) tip = await s.t.mine([{}], { parent: tip, salt: 'other branch' });
    expect(s.t.chain.head().equals(tip)).toBe(true);
    expect(await result('eth_getFilterChanges', [id])).toEqual([{ ...before[0], removed: true }]);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', address }])).toEqual([]);
  });

  test('at most maxFilters exist; one not polled within the TTL is removed; the oldest results go past the cap', async () => {
    let now = 0;
    const events = new EthEvents(s.t.chain, 31415926);
    events.start();
    const filters = new EthFilters(events, { maxFilters: 2, maxResults: 2, ttlMs: 1000 }, () => now);
    const a = filters.install('blocks');
    filters.install('blocks');
    expect(() => filters.install('blocks')).toThrow('maximum number of filters registered');
    const mined = [await s.t.mine(), await s.t.mine(), await s.t.mine()];
    expect(filters.take(a).collected).toEqual(mined.slice(1).map(ethBlockHash));
    now = 900;
    filters.take(a);
    now = 1500;
    expect(filters.size).toBe(1);
    filters.install('pending');
    expect(filters.size).toBe(2);
    events.stop();
  });
});

/** A WebSocket client of the node that records every message. */
async function socket(): Promise<{ ws: WebSocket; messages: Json[]; send: (body: Json) => Promise<Json> }> {
  const ws = new WebSocket(s.url(1).replace('http', 'ws'));
  const messages: Json[] = [];
  const waiters = new Map<number, (answer: Json) => void>();
  ws.on('message', (data: Buffer) => {
    const parsed = JSON.parse(data.toString()) as Json;
    messages.push(parsed);
    if (parsed.id !== undefined) waiters.get(parsed.id)?.(parsed);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  return {
    ws,
    messages,
    send: (body) =>
      new Promise((resolve) => {
        id++;
        waiters.set(id, resolve);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
      }),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe('eth_subscribe', () => {
  test('newHeads and logs arrive as eth_subscription notifications; eth_unsubscribe ends them', async () => {
    const { address } = await deploy();
    const client = await socket();
    const heads = (await client.send({ method: 'eth_subscribe', params: ['newHeads'] })).result as string;
    const logs = (await client.send({ method: 'eth_subscribe', params: ['logs', { address, topics: [INCREMENTED] }] }))
      .result as string;
    expect(heads).toMatch(/^0x[0-9a-f]{64}$/);
    const signed = increment(address, 'subscribed');
    const included = await s.t.mine([{ secp: [signed] }]);
    await s.t.mine();
    const notifications = () => client.messages.filter((m) => m.method === 'eth_subscription');
    await until(() => notifications().length >= 3, 'three notifications');
    const ofHeads = notifications().filter((m) => m.params.subscription === heads);
    const ofLogs = notifications().filter((m) => m.params.subscription === logs);
    expect(ofHeads.map((m) => m.params.result.number)).toEqual([
      `0x${(included.height - 1n).toString(16)}`,
      `0x${included.height.toString(16)}`,
    ]);
    expect(ofHeads[1]!.params.result.transactions[0]).toMatchObject({ hash: txHash(signed) });
    expect(ofLogs).toHaveLength(1);
    expect(ofLogs[0]).toEqual({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription: logs, result: expect.objectContaining({ address, transactionHash: txHash(signed) }) },
    });
    expect((await client.send({ method: 'eth_unsubscribe', params: [logs] })).result).toBe(true);
    expect((await client.send({ method: 'eth_unsubscribe', params: [logs] })).result).toBe(false);
    expect(client.messages.some((m) => m.method === 'xrpc.ch.close')).toBe(false);
    client.ws.close();
    expect((await rpc('eth_subscribe', ['newHeads'])).error).toEqual({
      code: -32601,
      message: 'notifications not supported',
    });
    expect((await rpc('eth_subscribe', ['sideways'])).error.code).not.toBe(0);
  });

  test('an unknown eth method gets the geth wording ethers looks for', async () => {
    expect((await rpc('eth_newFilterX')).error).toEqual({
      code: -32601,
      message: 'the method eth_newFilterX does not exist/is not available',
    });
    expect((await rpc('Filecoin.Nope')).error.message).toBe("method 'Filecoin.Nope' not found");
  });
});
