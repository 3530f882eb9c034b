/**
 * ethers v6 and viem, unmodified, against an in-process devnet (real proofs, 4 s blocks) over the
 * node's Ethereum JSON-RPC: connect (chain id 31415926), fund fresh 0x accounts with a Filecoin
 * send to their f410 addresses, then an EIP-1559 value transfer 0x → 0x from each library, waited
 * for by its receipt, checked with eth_getBalance, found by hash and in its block with full
 * transactions; then a Solidity contract compiled in the test with solc, deployed and called from
 * both libraries (their gas estimates enough), its events read with eth_getLogs and through `logs`
 * subscriptions over WebSocket, and a revert reason as each library reports it; last, a second node
 * syncs all of it with full validation and computes the same state roots and receipts.
 */
import {
  Contract,
  ContractFactory,
  type EventLog,
  type InterfaceAbi,
  JsonRpcProvider,
  Wallet,
  WebSocketProvider,
} from 'ethers';
import {
  type Abi,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Log,
  type PublicClient,
  webSocket,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addressFromEthAddress, FILECOIN_PRECISION } from '../../src/types/index.js';
import { closeEvmWorker } from '../../src/vm/evm/interpreter.js';
import { compileCounter } from '../helpers/counter-contract.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { withSyncedFollower } from '../helpers/follower.js';
import { transferJson } from '../helpers/message-json.js';

const PROOF_TIMEOUT_MS = 10 * 60_000;
/** Blocks carry real winning PoSt: on a busy 2-core machine an epoch can take 30 s or more. */
const TEST_TIMEOUT_MS = 12 * 60_000;
const FIL = FILECOIN_PRECISION;
const CHAIN_ID = 31415926;
const CONFIRMATIONS = 2;

let devnet: Devnet;
let provider: JsonRpcProvider;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 4000 });
  await devnet.waitForHeight(1, PROOF_TIMEOUT_MS);
  provider = new JsonRpcProvider(devnet.url, undefined, { pollingInterval: 1000 });
}, PROOF_TIMEOUT_MS);
afterAll(async () => {
  provider?.destroy();
  await devnet?.stop();
  await closeEvmWorker();
});

const chain = defineChain({
  id: CHAIN_ID,
  name: 'ledger devnet',
  nativeCurrency: { name: 'Filecoin', symbol: 'FIL', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

/** Pushes a send of `value` from the devnet's default account to the f410 address of `ethAddress`. */
async function pushFunds(ethAddress: string, value: bigint): Promise<{ CID: unknown }> {
  const from = devnet.accounts[0]!.address;
  const to = addressFromEthAddress(ethAddress).toString('t');
  return devnet.rpc<{ CID: unknown }>('MpoolPushMessage', [transferJson(from, to, value), null]);
}

/** Sends `value` from the devnet's default account to the f410 address of `ethAddress` and waits for it. */
async function fund(ethAddress: string, value: bigint): Promise<void> {
  const signed = await pushFunds(ethAddress, value);
  await devnet.rpc('StateWaitMsg', [signed.CID, 1, -1, true]);
}

/** Waits until eth_getBalance ("latest") shows `ethAddress` holding at least `value`. */
async function waitForBalance(ethAddress: string, value: bigint): Promise<bigint> {
  for (;;) {
    const balance = await provider.getBalance(ethAddress, 'latest');
    if (balance >= value) return balance;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** viem's receipt of `hash`, waited for with the test's confirmations. */
function viemReceiptOf(client: PublicClient, hash: `0x${string}`) {
  return client.waitForTransactionReceipt({
    hash,
    timeout: TEST_TIMEOUT_MS,
    pollingInterval: 1000,
    confirmations: CONFIRMATIONS,
    // While a transaction is pending, viem's replacement check fetches every block number it polls,
    // null rounds included, which this node (as Lotus) answers with error 12 and viem then gives up.
    checkReplacement: false,
  });
}

test(
  'ethers and viem connect, send EIP-1559 transfers between fresh 0x accounts, and find them by receipt, hash and block',
  async () => {
    // Connect: both libraries read the chain id.
    expect((await provider.getNetwork()).chainId).toBe(BigInt(CHAIN_ID));
    const publicClient = createPublicClient({ chain, transport: http(devnet.url), pollingInterval: 1000 });
    expect(await publicClient.getChainId()).toBe(CHAIN_ID);

    // Fresh accounts, funded from a devnet account through their f410 addresses.
    const ethersSender = Wallet.createRandom().connect(provider);
    const viemAccount = privateKeyToAccount(generatePrivateKey());
    const recipient = Wallet.createRandom().address.toLowerCase();
    await fund(ethersSender.address, 10n * FIL);
    await fund(viemAccount.address, 10n * FIL);
    const funded = await waitForBalance(ethersSender.address, 10n * FIL);
    expect(await publicClient.getBalance({ address: viemAccount.address })).toBe(10n * FIL);

    // ethers: EIP-1559 transfer, waited for by its receipt.
    const sent = await ethersSender.sendTransaction({ to: recipient, value: FIL });
    expect(sent.type).toBe(2);
    // Two confirmations: under load the devnet's miner can still replace the newest tipset.
    const receipt = await sent.wait(CONFIRMATIONS, TEST_TIMEOUT_MS);
    expect(receipt).not.toBeNull();
    expect(receipt!.status).toBe(1);
    expect(receipt!.gasUsed).toBeGreaterThan(0n);
    expect(receipt!.gasPrice).toBeGreaterThan(0n);
    expect(receipt!.from.toLowerCase()).toBe(ethersSender.address.toLowerCase());
    expect(receipt!.to?.toLowerCase()).toBe(recipient);

    // The sender paid the value and gasUsed × effectiveGasPrice (rounded down per gas unit).
    const spent = funded - (await provider.getBalance(ethersSender.address, 'latest'));
    const fee = receipt!.gasUsed * receipt!.gasPrice;
    expect(spent - FIL - fee).toBeGreaterThanOrEqual(0n);
    expect(spent - FIL - fee).toBeLessThan(receipt!.gasUsed);
    expect(await provider.getTransactionCount(ethersSender.address, 'latest')).toBe(1);

    const found = await provider.getTransaction(sent.hash);
    expect(found?.blockNumber).toBe(receipt!.blockNumber);
    expect(found?.from.toLowerCase()).toBe(ethersSender.address.toLowerCase());
    const block = await provider.getBlock(receipt!.blockNumber, true);
    expect(block?.prefetchedTransactions.map((tx) => tx.hash)).toContain(sent.hash);

    // viem: EIP-1559 transfer from the other fresh account to the same recipient.
    const walletClient = createWalletClient({ account: viemAccount, chain, transport: http(devnet.url) });
    const hash = await walletClient.sendTransaction({ to: recipient as `0x${string}`, value: FIL });
    const viemReceipt = await viemReceiptOf(publicClient, hash);
    expect(viemReceipt.status).toBe('success');
    expect(viemReceipt.type).toBe('eip1559');
    expect(viemReceipt.gasUsed).toBeGreaterThan(0n);
    expect(viemReceipt.effectiveGasPrice).toBeGreaterThan(0n);
    const viemTx = await publicClient.getTransaction({ hash });
    expect(viemTx.type).toBe('eip1559');
    expect(viemTx.blockNumber).toBe(viemReceipt.blockNumber);
    const viemBlock = await publicClient.getBlock({ blockNumber: viemReceipt.blockNumber, includeTransactions: true });
    expect(viemBlock.transactions.map((tx) => tx.hash)).toContain(hash);

    expect(await publicClient.getBalance({ address: recipient as `0x${string}` })).toBe(2n * FIL);
  },
  TEST_TIMEOUT_MS,
);

/** Resolves with what `collect` gathered once it holds `count` items, or rejects after `ms`. */
function waitFor<T>(items: T[], count: number, ms: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (items.length >= count) resolve(items);
      else if (Date.now() - started > ms) reject(new Error(`only ${items.length} of ${count} items after ${ms} ms`));
      else setTimeout(check, 250);
    };
    check();
  });
}

test(
  'ethers and viem deploy and call a solc-compiled contract, read its events by eth_getLogs and logs subscriptions, and see a revert reason',
  async () => {
    const counter = compileCounter();
    const abi = counter.abi as Abi;
    const ethersAbi = counter.abi as InterfaceAbi;
    const bytecode = `0x${Buffer.from(counter.bytecode).toString('hex')}` as const;
    const deployer = Wallet.createRandom().connect(provider);
    const viemAccount = privateKeyToAccount(generatePrivateKey());
    // Both sends in one go, waited for by balance (StateWaitMsg's call can time out on a loaded machine).
    await pushFunds(deployer.address, 50n * FIL);
    await pushFunds(viemAccount.address, 50n * FIL);
    await waitForBalance(deployer.address, 50n * FIL);
    await waitForBalance(viemAccount.address, 50n * FIL);

    // ethers deploys (eth_estimateGas, then the transaction with that gas limit) and waits for the code.
    const deployed = await new ContractFactory(ethersAbi, bytecode, deployer).deploy();
    const deployReceipt = await deployed.deploymentTransaction()!.wait(CONFIRMATIONS, TEST_TIMEOUT_MS);
    expect(deployReceipt!.status).toBe(1);
    await deployed.waitForDeployment();
    const address = (await deployed.getAddress()) as `0x${string}`;
    expect(deployReceipt!.contractAddress).toBe(address);
    expect((await provider.getCode(address)).length).toBeGreaterThan(2);

    // Logs subscriptions over WebSocket, from both libraries, before the calls.
    const wsUrl = devnet.url.replace(/^http/, 'ws');
    const wsProvider = new WebSocketProvider(wsUrl);
    const subscribed: Array<{ count: bigint; note: string }> = [];
    await new Contract(address, ethersAbi, wsProvider).on('Incremented', (_by: string, count: bigint, note: string) => {
      subscribed.push({ count, note });
    });
    // No reconnect: the socket is closed below, before the devnet stops.
    const wsClient = createPublicClient({ chain, transport: webSocket(wsUrl, { reconnect: false }) });
    const watched: Log[] = [];
    const unwatch = wsClient.watchContractEvent({
      address,
      abi,
      eventName: 'Incremented',
      onLogs: (logs) => {
        watched.push(...logs);
      },
    });

    // ethers calls it (its estimate is enough: the transaction succeeds with it).
    const counterContract = new Contract(address, ethersAbi, deployer);
    const tx = await counterContract.getFunction('increment')('hello from ethers');
    const receipt = await tx.wait(CONFIRMATIONS, TEST_TIMEOUT_MS);
    expect(receipt.status).toBe(1);
    expect(receipt.gasUsed).toBeLessThanOrEqual(tx.gasLimit);
    expect(receipt.logs).toHaveLength(1);
    expect(await counterContract.getFunction('count')()).toBe(1n);

    // viem calls it from its own account.
    const walletClient = createWalletClient({ account: viemAccount, chain, transport: http(devnet.url) });
    const publicClient = createPublicClient({ chain, transport: http(devnet.url), pollingInterval: 1000 });
    const hash = await walletClient.writeContract({
      address,
      abi,
      functionName: 'increment',
      args: ['hello from viem'],
    });
    const viemReceipt = await viemReceiptOf(publicClient, hash);
    expect(viemReceipt.status).toBe('success');
    expect(await publicClient.readContract({ address, abi, functionName: 'count' })).toBe(2n);

    // eth_getLogs, through each library; the log indexes agree with the receipts'.
    const queried = (await counterContract.queryFilter('Incremented', 0)) as EventLog[];
    expect(queried.map((log) => log.args[2])).toEqual(['hello from ethers', 'hello from viem']);
    expect(queried[0]!.index).toBe(receipt.logs[0]!.index);
    const viemLogs = await publicClient.getContractEvents({ address, abi, eventName: 'Incremented', fromBlock: 0n });
    expect(viemLogs.map((log) => (log as unknown as { args: { count: bigint } }).args.count)).toEqual([1n, 2n]);
    expect(viemLogs[1]!.logIndex).toBe(viemReceipt.logs[0]!.logIndex);

    // The subscriptions saw both.
    await waitFor(subscribed, 2, 60_000);
    expect(subscribed.map((event) => event.note)).toEqual(['hello from ethers', 'hello from viem']);
    await waitFor(watched, 2, 60_000);
    expect(watched.map((log) => log.transactionHash)).toEqual([receipt.hash, hash]);
    unwatch();
    (await wsClient.transport.getRpcClient()).close();
    await wsProvider.destroy();

    // A revert reason, as each library reports it (eth_call error 3 with the revert data).
    await expect(counterContract.getFunction('fail').staticCall()).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'counter: nope',
    });
    const failure = await publicClient
      .simulateContract({ account: viemAccount, address, abi, functionName: 'fail' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BaseError);
    const reverted = (failure as BaseError).walk((error) => error instanceof ContractFunctionRevertedError);
    expect((reverted as ContractFunctionRevertedError).reason).toBe('counter: nope');
  },
  TEST_TIMEOUT_MS,
);

test(
  'a second node syncs the chain with these transactions, deployments and contract calls, and reaches the same state and receipts',
  async () => {
    const receipts = await withSyncedFollower(devnet, TEST_TIMEOUT_MS, async (follower, tipSet) => {
      const theirs = await follower.chain!.states.stateOf(tipSet);
      const ours = await devnet.node.chain!.states.stateOf(devnet.node.chain!.chain.loadTipSet(tipSet.key));
      return { ours: ours.receiptsRoot.toString(), theirs: theirs.receiptsRoot.toString() };
    });
    expect(receipts.theirs).toBe(receipts.ours);
  },
  TEST_TIMEOUT_MS,
);
