/**
 * The EVM bridge (src/vm/evm/interpreter.ts): what a synchronous `runEvm` through the worker thread
 * costs. Three figures, one run:
 *
 * - "host round trip": host requests served per second inside one run (SLOADs of 1,000 slots of
 *   a Map-backed host; the empty run is measured apart and subtracted);
 * - "empty run": `runEvm` calls per second on code that stops at once (the run request's round trip);
 * - "ERC-20 transfer": solc-compiled ERC-20 transfers per second, through `runEvm` over a Map-backed
 *   host, and, on the same transfers, in `@ethereumjs/evm` on the calling thread with its own
 *   in-memory state (`runCall` over its SimpleStateManager): the bridge's overhead. Both must end
 *   with the same balances.
 *
 * Then whole ERC-20 transfer transactions (bench/evm-transfers.ts), the same signed EIP-1559 raw
 * transactions on two chains:
 *
 * - "ERC-20 transfer transaction, signature checked": transfers applied per second by our VM as
 *   tipsets (delegated signatures checked as block validation does, SQLite-backed state), and by
 *   Hardhat's in-process network through eth_sendRawTransaction (automine: a block per transaction);
 * - the cost per transfer (µs) of our VM over its state backend beside `@ethereumjs/evm` over its
 *   in-memory state (the figure above).
 *
 *   npm run bench:evm
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { Address, bytesToBigInt, createAccount, hexToBytes } from '@ethereumjs/util';
import { Interface } from 'ethers';
import { toHex } from '../src/utils/bytes.js';
import { closeEvmWorker, EvmBridge } from '../src/vm/evm/interpreter.js';
import type { EvmContext, EvmHost } from '../src/vm/evm/types.js';
import { address, CHAIN_ID, MapWorld } from '../test/vm/evm/map-host.js';
import { compileSolidity, ERC20_CONTRACT, SOLIDITY_HEADER } from '../test/vm/evm/solidity.js';
import { expectedBalance, runOnHardhat, runOnLedgerVm, signTransfers } from './evm-transfers.js';
import { assertAgree, type Measurement, measure, opsOf, report } from './harness.js';

const TOKEN = `${SOLIDITY_HEADER}${ERC20_CONTRACT}`;
const RECIPIENTS = 1000;
const SUPPLY = 10n ** 30n;

const token = compileSolidity(TOKEN).Token!;
const tokenAbi = new Interface(token.abi as never);
const sender = address(0xee);
const recipients = Array.from({ length: RECIPIENTS }, (_, i) => {
  const at = new Uint8Array(20);
  at[0] = 0xaa;
  new DataView(at.buffer).setUint32(16, i + 1);
  return at;
});
const transferInputs = recipients.map((to) =>
  hexToBytes(tokenAbi.encodeFunctionData('transfer', [`0x${toHex(to)}`, 1n]) as `0x${string}`),
);
const balanceOfInput = (of: Uint8Array) =>
  hexToBytes(tokenAbi.encodeFunctionData('balanceOf', [`0x${toHex(of)}`]) as `0x${string}`);

const bridge = new EvmBridge();
const results: Measurement[] = [];

function contextOf(at: Uint8Array): EvmContext {
  return {
    address: at,
    caller: sender,
    origin: sender,
    value: 0n,
    readOnly: false,
    chainId: CHAIN_ID,
    epoch: 1000n,
    timestamp: 1_700_000_000n,
    baseFee: 100n,
    gasPrice: 150n,
  };
}

// Host round trips and empty runs, over a host with one storage slot.
const storage = new Map<bigint, bigint>([[0n, 7n]]);
const slotHost = new MapWorld(bridge).host(contextOf(address(1)));
slotHost.storageGet = (key) => storage.get(key) ?? 0n;
const REQUESTS = 1000;
// PUSH2 i SLOAD POP for REQUESTS distinct slots (a run reads a slot from its host once), then STOP.
const sloads = hexToBytes(
  `0x${Array.from({ length: REQUESTS }, (_, i) => `61${i.toString(16).padStart(4, '0')}5450`).join('')}00`,
);
const empty = Uint8Array.of(0x00);
const emptyRun = await measure('empty run', 'runEvm', () => bridge.run(empty, empty, contextOf(address(1)), slotHost));
const sloadRun = await measure('1,000 SLOADs', 'runEvm', () =>
  bridge.run(sloads, empty, contextOf(address(1)), slotHost),
);
const roundTripSeconds = (1 / sloadRun.opsPerSec - 1 / emptyRun.opsPerSec) / REQUESTS;
results.push(emptyRun, { case: 'host round trip', impl: 'runEvm', opsPerSec: 1 / roundTripSeconds });

// ERC-20 transfers through the bridge, over a Map-backed host (no per-call snapshots: the run's own cost).
const world = new MapWorld(bridge);
const constructorArgs = hexToBytes(tokenAbi.encodeDeploy([SUPPLY]) as `0x${string}`);
const tokenAt = world.deploy(Uint8Array.from([...token.bytecode, ...constructorArgs]), sender);
const tokenCode = world.contract(tokenAt)!.code;
const tokenHost: EvmHost = world.host(contextOf(tokenAt));
let next = 0;
results.push(
  await measure('ERC-20 transfer', 'runEvm (worker, Map host)', () => {
    const outcome = bridge.run(tokenCode, transferInputs[next++ % RECIPIENTS]!, contextOf(tokenAt), tokenHost);
    if (outcome.status !== 'success') throw new Error(`transfer failed: ${JSON.stringify(outcome)}`);
  }),
);
const bridgeTransfers = next;

// The same transfers in @ethereumjs/evm on this thread, over its own in-memory state.
const evm = await createEVM({
  common: createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Cancun }),
});
const deployer = new Address(sender);
await evm.stateManager.putAccount(deployer, createAccount({ nonce: 0n, balance: 10n ** 18n }));
const deployed = await evm.runCall({
  caller: deployer,
  data: Uint8Array.from([...token.bytecode, ...constructorArgs]),
  gasLimit: 10_000_000n,
});
const ethereumjsToken = deployed.createdAddress!;
let nextDirect = 0;
results.push(
  await measure('ERC-20 transfer', '@ethereumjs/evm in process (own state)', async () => {
    const run = await evm.runCall({
      caller: deployer,
      to: ethereumjsToken,
      data: transferInputs[nextDirect++ % RECIPIENTS]!,
      gasLimit: 1_000_000n,
      skipBalance: true,
    });
    if (run.execResult.exceptionError !== undefined)
      throw new Error(`transfer failed: ${run.execResult.exceptionError.error}`);
  }),
);

// Each side's balances after its own number of transfers (round-robin over the recipients).
const expected = (i: number, count: number) =>
  BigInt(Math.floor(count / RECIPIENTS) + (i < count % RECIPIENTS ? 1 : 0));
const balanceThroughBridge = (of: Uint8Array) => {
  const outcome = bridge.run(tokenCode, balanceOfInput(of), contextOf(tokenAt), tokenHost);
  return outcome.status === 'success' ? bytesToBigInt(outcome.output) : -1n;
};
const balanceInEthereumjs = async (of: Uint8Array) =>
  bytesToBigInt(
    (await evm.runCall({ caller: deployer, to: ethereumjsToken, data: balanceOfInput(of), gasLimit: 1_000_000n }))
      .execResult.returnValue,
  );
for (const i of [0, 1, RECIPIENTS - 1]) {
  assertAgree(`recipient ${i} after ${bridgeTransfers} transfers`, {
    runEvm: String(balanceThroughBridge(recipients[i]!)),
    expected: String(expected(i, bridgeTransfers)),
  });
  assertAgree(`recipient ${i} after ${nextDirect} transfers`, {
    ethereumjs: String(await balanceInEthereumjs(recipients[i]!)),
    expected: String(expected(i, nextDirect)),
  });
}
bridge.close();

// Whole transactions: the same signed transfers on our VM and on Hardhat, best of RUNS each.
const TRANSACTIONS = 3000;
const PER_TIPSET = 250;
const WARMUP_TIPSETS = 1;
const RUNS = 2;
const checkedRecipients = [0, 1, RECIPIENTS - 1];
const workload = await signTransfers(token, SUPPLY, TRANSACTIONS, RECIPIENTS);
const timedCount = TRANSACTIONS - PER_TIPSET * WARMUP_TIPSETS;
const balancesAfter = checkedRecipients.map((i) => String(expectedBalance(workload, i, TRANSACTIONS)));
let ledgerBest = Number.POSITIVE_INFINITY;
let hardhatBest = Number.POSITIVE_INFINITY;
for (let run = 0; run < RUNS; run++) {
  const ours = await runOnLedgerVm(workload, PER_TIPSET, WARMUP_TIPSETS, checkedRecipients);
  const theirs = await runOnHardhat(workload, PER_TIPSET * WARMUP_TIPSETS, checkedRecipients);
  assertAgree('recipient balances after the transfers', {
    ledger: ours.balances.map(String),
    hardhat: theirs.balances.map(String),
    expected: balancesAfter,
  });
  ledgerBest = Math.min(ledgerBest, ours.seconds);
  hardhatBest = Math.min(hardhatBest, theirs.seconds);
  console.error(`  run ${run + 1}: ledger VM ${ours.seconds.toFixed(2)} s, Hardhat ${theirs.seconds.toFixed(2)} s`);
}
closeEvmWorker();
const TRANSACTION_CASE = 'ERC-20 transfer transaction, signature checked';
const LEDGER_VM = 'ledger VM (tipsets, SQLite state)';
const HARDHAT = 'Hardhat in-process (automine)';
results.push(
  { case: TRANSACTION_CASE, impl: LEDGER_VM, opsPerSec: timedCount / ledgerBest },
  { case: TRANSACTION_CASE, impl: HARDHAT, opsPerSec: timedCount / hardhatBest },
);

const transfers = results.filter((r) => r.case === 'ERC-20 transfer');
const micros = (impl: string, caseName = TRANSACTION_CASE) => 1e6 / opsOf(results, caseName, impl);
const costPerTransferUs = {
  [LEDGER_VM]: micros(LEDGER_VM),
  [HARDHAT]: micros(HARDHAT),
  'runEvm (worker, Map host)': micros('runEvm (worker, Map host)', 'ERC-20 transfer'),
  '@ethereumjs/evm in process (own state)': micros('@ethereumjs/evm in process (own state)', 'ERC-20 transfer'),
};
console.table(Object.entries(costPerTransferUs).map(([impl, us]) => ({ impl, 'µs per transfer': Math.round(us) })));
report(
  'evm',
  results,
  {
    'ERC-20 transfer: runEvm / ethereumjs in process': transfers[0]!.opsPerSec / transfers[1]!.opsPerSec,
    'ERC-20 transactions/s with signature checks: ledger VM / Hardhat': hardhatBest / ledgerBest,
    'cost per transfer: ledger VM (SQLite state) / @ethereumjs/evm (in-memory state)':
      costPerTransferUs[LEDGER_VM] / costPerTransferUs['@ethereumjs/evm in process (own state)'],
  },
  {
    costPerTransferUs,
    setup: {
      transactions: TRANSACTIONS,
      timed: timedCount,
      perTipset: PER_TIPSET,
      blocksPerTipset: 2,
      recipients: RECIPIENTS,
      runs: RUNS,
      chainId: 31415926,
      hardhat: 'hardhat 2.x in process, bench/hardhat.config.cjs, automine',
    },
  },
);
