/**
 * ethers v6 and viem, unmodified, against an in-process devnet (real proofs, 4 s blocks) over the
 * node's Ethereum JSON-RPC: connect (chain id 31415926), fund fresh 0x accounts with a Filecoin
 * send to their f410 addresses, then an EIP-1559 value transfer 0x → 0x from each library, waited
 * for by its receipt, checked with eth_getBalance, found by hash and in its block with full
 * transactions.
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addressFromEthAddress, FILECOIN_PRECISION } from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';
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
});

/** Sends `value` from the devnet's default account to the f410 address of `ethAddress` and waits for it. */
async function fund(ethAddress: string, value: bigint): Promise<void> {
  const from = devnet.accounts[0]!.address;
  const to = addressFromEthAddress(ethAddress).toString('t');
  const signed = await devnet.rpc<{ CID: unknown }>('MpoolPushMessage', [transferJson(from, to, value), null]);
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

test(
  'ethers and viem connect, send EIP-1559 transfers between fresh 0x accounts, and find them by receipt, hash and block',
  async () => {
    // Connect: both libraries read the chain id.
    expect((await provider.getNetwork()).chainId).toBe(BigInt(CHAIN_ID));
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'ledger devnet',
      nativeCurrency: { name: 'Filecoin', symbol: 'FIL', decimals: 18 },
      rpcUrls: { default: { http: [devnet.url] } },
    });
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
    const viemReceipt = await publicClient.waitForTransactionReceipt({
      hash,
      timeout: TEST_TIMEOUT_MS,
      pollingInterval: 1000,
      confirmations: CONFIRMATIONS,
      // While a transaction is pending, viem's replacement check fetches every block number it polls,
      // null rounds included, which this node (as Lotus) answers with error 12 and viem then gives up.
      checkReplacement: false,
    });
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
