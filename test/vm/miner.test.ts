/**
 * Storage miners and power, through messages: CreateMiner with its deposit, block rewards vesting,
 * penalties, withdrawals, worker key changes, control addresses, and the power actor's claims.
 */
import { Address, bigIntToBytes, type CID, decodeCbor, encodeCbor } from '../../src/types/index.js';
import { loadVestingFunds } from '../../src/vm/actors/vesting-funds.js';
import {
  ExitCode,
  encodeCreateMinerParams,
  MinerMethod,
  minerInfo,
  minerPower,
  minerState,
  PowerMethod,
} from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, type GenesisState, MINER, PARAMS, standardGenesis } from '../helpers/genesis.js';
import { blsKey, keys, type SecpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { balanceOf, loadTree } from '../helpers/state.js';

const { alice, bob, worker } = keys;
const POWER = Address.newId(4n);

/** The worker is BLS, so it cannot sign secp messages; the genesis miner's owner acts through it as a BLS message. */
function asOwner(fields: Omit<Parameters<typeof message>[0], 'from'>) {
  return message({ gasLimit: 100_000_000n, ...fields, from: worker.address });
}

async function run(
  chain: GenesisState,
  root: CID,
  epoch: bigint,
  blocks: ReturnType<typeof block>[],
  parentEpoch = epoch - 1n,
) {
  return applyAt(chain, root, epoch, blocks, { parentEpoch, trace: true });
}

describe('CreateMiner', () => {
  const create = (from: SecpKey, workerAddress: Address, value: bigint, nonce = 0n) =>
    signSecp(
      from,
      message({
        from: from.address,
        to: POWER,
        nonce,
        value,
        method: PowerMethod.CreateMiner,
        params: encodeCreateMinerParams({
          owner: from.address,
          worker: workerAddress,
          windowPoStProofType: 10n,
          peer: new Uint8Array([1]),
          multiaddrs: [],
        }),
        gasLimit: 200_000_000n,
      }),
    );

  test('creates f01001 through Init.Exec, locks the deposit and registers an empty claim', async () => {
    const chain = standardGenesis();
    const result = await run(chain, chain.genesisRoot, 1n, [block([create(alice, keys.carol.address, 100n * FIL)])]);
    expect(result.receipts[0]!.exitCode).toBe(0n);
    const [id] = decodeCbor(result.receipts[0]!.return) as [Uint8Array, Uint8Array];
    const miner = Address.fromBytes(id);
    expect(miner.toString()).toBe('f01001');
    const trace = result.invocResults[0]!.executionTrace;
    expect(trace.subcalls[0]!.msg.to.toString()).toBe('f01');
    expect(trace.subcalls[0]!.subcalls[0]!.msg.method).toBe(1n);
    const tree = loadTree(chain, result.stateRoot);
    const state = minerState(tree, miner);
    expect(state.lockedFunds).toBeGreaterThan(0n);
    expect(balanceOf(tree, miner)).toBe(100n * FIL);
    const power = minerPower(tree, miner, PARAMS)!;
    expect([power.miner.rawBytePower, power.hasMinPower]).toEqual([0n, false]);
    const info = minerInfo(tree, miner);
    expect(info.worker.toString()).toBe(`f0${tree.lookupId(keys.carol.address)}`);
    expect(info.windowPoStPartitionSectors).toBe(2n);
  });

  test('refuses a value below the deposit and a secp256k1 worker', async () => {
    const chain = standardGenesis();
    const result = await run(chain, chain.genesisRoot, 1n, [
      block([create(alice, keys.carol.address, 1n), create(bob, bob.address, 5n * FIL)]),
    ]);
    expect(result.receipts.map((r) => r.exitCode)).toEqual([
      BigInt(ExitCode.UsrInsufficientFunds),
      BigInt(ExitCode.UsrIllegalArgument),
    ]);
    expect(loadTree(chain, result.stateRoot).getActor(1001n)).toBeUndefined();
  });
});

describe('the genesis miner', () => {
  test('block rewards: 75% locked to vest, penalties burnt from vesting funds', async () => {
    const chain = standardGenesis();
    const before = loadTree(chain, chain.genesisRoot);
    const lockedBefore = minerState(before, MINER).lockedFunds;
    const rewarded = await run(chain, chain.genesisRoot, 1n, [block([])]);
    const after = loadTree(chain, rewarded.stateRoot);
    const reward = balanceOf(after, MINER) - balanceOf(before, MINER);
    const state = minerState(after, MINER);
    expect(state.lockedFunds - lockedBefore).toBe((reward * 3n) / 4n);
    const vesting = loadVestingFunds(chain.store, state.vestingFunds);
    expect(vesting.reduce((sum, fund) => sum + fund.amount, 0n)).toBe(state.lockedFunds);
    expect(vesting.every((fund, i) => i === 0 || fund.epoch > vesting[i - 1]!.epoch)).toBe(true);

    // A message whose fee cap is below the base fee costs the miner (base fee − fee cap) × gas, ×3.
    const cheap = signSecp(
      alice,
      message({ from: alice.address, to: bob.address, value: 1n, gasFeeCap: 50n, gasPremium: 0n }),
    );
    const penalized = await run(chain, rewarded.stateRoot, 2n, [block([cheap])]);
    const penalty = penalized.invocResults[0]!.gasCost.minerPenalty;
    expect(penalty).toBeGreaterThan(0n);
    const award = penalized.invocResults.find((r) => r.msg.to.toString() === 'f02' && r.msg.nonce === 2n)!;
    const burn = award.executionTrace.subcalls[0]!.subcalls.find((call) => call.msg.to.toString() === 'f099')!;
    expect(burn.msg.value).toBe(3n * penalty);
  });

  test('the owner withdraws what is not locked; nobody else may', async () => {
    const chain = standardGenesis();
    const rewarded = await run(chain, chain.genesisRoot, 1n, [block([])]);
    const tree = loadTree(chain, rewarded.stateRoot);
    const state = minerState(tree, MINER);
    const available = balanceOf(tree, MINER) - state.lockedFunds - state.initialPledge;
    expect(available).toBeGreaterThan(0n);
    const params = encodeCbor([bigIntToBytes(10n ** 30n)]);
    const result = await run(chain, rewarded.stateRoot, 2n, [
      block(
        [
          signSecp(
            alice,
            message({
              from: alice.address,
              to: MINER,
              method: MinerMethod.WithdrawBalance,
              params,
              gasLimit: 100_000_000n,
            }),
          ),
        ],
        [asOwner({ to: MINER, method: MinerMethod.WithdrawBalance, params })],
      ),
    ]);
    // BLS messages run first: the owner's withdrawal, then alice's refused one.
    expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, BigInt(ExitCode.UsrForbidden)]);
    const after = loadTree(chain, result.stateRoot);
    const withdrawn = decodeCbor(result.receipts[0]!.return) as Uint8Array;
    expect(withdrawn).toEqual(bigIntToBytes(available));
    expect(balanceOf(after, worker.address) - balanceOf(tree, worker.address)).toBe(
      available - result.invocResults[0]!.gasCost.totalCost,
    );
  });

  test('a worker change takes effect after the delay, when the owner confirms it', async () => {
    const chain = standardGenesis();
    const newWorker = blsKey('new-worker').address;
    const fund = signSecp(alice, message({ from: alice.address, to: newWorker, value: FIL }));
    const change = asOwner({
      to: MINER,
      method: MinerMethod.ChangeWorkerAddress,
      params: encodeCbor([newWorker.bytes, []]),
    });
    const first = await run(chain, chain.genesisRoot, 1n, [block([fund], [change])]);
    expect(first.receipts.map((r) => r.exitCode)).toEqual([BigInt(ExitCode.UsrIllegalArgument), 0n]);
    const second = await run(chain, first.stateRoot, 2n, [block([], [{ ...change, nonce: 1n }])]);
    expect(second.receipts[0]!.exitCode).toBe(0n);
    const pending = minerInfo(loadTree(chain, second.stateRoot), MINER).pendingWorkerKey!;
    expect(pending.effectiveAt).toBe(2n + PARAMS.workerKeyChangeDelay);

    const confirm = asOwner({ to: MINER, nonce: 2n, method: MinerMethod.ConfirmChangeWorkerAddress });
    const early = await run(chain, second.stateRoot, 3n, [block([], [confirm])]);
    expect(minerInfo(loadTree(chain, early.stateRoot), MINER).worker.toString()).toBe(
      `f0${loadTree(chain, early.stateRoot).lookupId(worker.address)}`,
    );
    const late = await run(
      chain,
      early.stateRoot,
      pending.effectiveAt,
      [block([], [{ ...confirm, nonce: 3n }])],
      pending.effectiveAt - 1n,
    );
    const tree = loadTree(chain, late.stateRoot);
    const info = minerInfo(tree, MINER);
    expect(info.worker.toString()).toBe(`f0${tree.lookupId(newWorker)}`);
    expect(info.pendingWorkerKey).toBeNull();
  });

  test('ControlAddresses and the power actor’s views', async () => {
    const chain = standardGenesis();
    const ask = (nonce: bigint, to: Address, method: bigint, params: Uint8Array = new Uint8Array(0)) =>
      signSecp(alice, message({ from: alice.address, to, nonce, method, params, gasLimit: 100_000_000n }));
    const result = await run(chain, chain.genesisRoot, 1n, [
      block([
        ask(0n, MINER, MinerMethod.ControlAddresses),
        ask(1n, POWER, PowerMethod.MinerRawPowerExported, encodeCbor(1000)),
        ask(2n, POWER, PowerMethod.UpdateClaimedPower, encodeCbor([bigIntToBytes(1n), bigIntToBytes(1n)])),
      ]),
    ]);
    const tree = loadTree(chain, result.stateRoot);
    const workerId = Address.newId(tree.lookupId(worker.address)!);
    const [owner, workerAddress, control] = decodeCbor(result.receipts[0]!.return) as [
      Uint8Array,
      Uint8Array,
      Uint8Array[],
    ];
    expect([Address.fromBytes(owner).toString(), Address.fromBytes(workerAddress).toString(), control]).toEqual([
      workerId.toString(),
      workerId.toString(),
      [],
    ]);
    expect(decodeCbor(result.receipts[1]!.return)).toEqual([bigIntToBytes(4096n), true]);
    expect(result.receipts[2]!.exitCode).toBe(BigInt(ExitCode.UsrForbidden));
  });
});
