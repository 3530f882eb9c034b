/**
 * `ledger miner …` against a running devnet (the built CLI, `npm run build:ts` first): the genesis
 * miner's info and proving state, pausing its window PoSt, `miner init` creating a second miner that
 * the node then runs, two pledged sectors sealed and prove-committed on chain while the genesis miner
 * keeps proving its own deadlines and block production misses no round; then a second node syncs
 * the chain — pre-commits, prove-commits with their PoRep, window PoSts — from genesis over libp2p
 * with full validation and reaches the same state. With LEDGER_E2E_LONG=1, also the new miner's
 * first window PoSt giving it 4 KiB of power, the blocks it then wins, proving paused (faults,
 * power lost, the continued-fault fee a proving period later) and resumed (recovery, power back).
 *
 * 4-second blocks, as `ledger devnet`: on 2 cores a winning PoSt takes about 2.5 s, so at 2 s blocks
 * block production alone keeps both cores busy and sealing, below it in priority, barely moves.
 */
import { bitFieldFromLotusJson } from '../../src/ipld/index.js';
import type { MiningLoop } from '../../src/miner/mining-loop.js';
import { StateTree } from '../../src/state/index.js';
import { Address, tipSetKeyToLotusJson } from '../../src/types/index.js';
import { minerAllSectors } from '../../src/vm/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { withSyncedFollower } from '../helpers/follower.js';
import { runLedger } from '../helpers/ledger-cli.js';

let devnet: Devnet;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 4000, accounts: 2 });
  env = { LEDGER_API_INFO: `${devnet.token}:${devnet.url.replace(/\/rpc\/v1$/, '')}` };
  await devnet.waitForHeight(1);
}, 300_000);
afterAll(() => devnet?.stop());

async function ledger(...args: string[]): Promise<string> {
  const run = await runLedger(['miner', ...args], { env });
  if (run.code !== 0) throw new Error(`ledger miner ${args.join(' ')} exited with ${run.code}: ${run.stderr}`);
  return run.stdout;
}

test('miner info describes the genesis miner, the default one', async () => {
  const info = await ledger('info');
  expect(info).toContain(`Miner: ${devnet.miner.address} (2.0 KiB sectors)`);
  expect(info).toContain(`Worker: `);
  expect(info).toMatch(/\tRaw: 4\.0 KiB \/ 4\.0 KiB \(100\.0000%\)/);
  expect(info).toContain('\tCommitted: 4.0 KiB');
  expect(info).toContain('\tTotal: 0');
}, 60_000);

test('proving info, deadlines and faults read the genesis miner', async () => {
  const info = await ledger('proving', 'info');
  expect(info).toMatch(/^Miner: t01000\nCurrent Epoch: +\d+\n/);
  expect(info).toMatch(/Deadline Index: +\d+/);
  expect(info).toContain('Proving:                 running');
  const deadlines = await ledger('proving', 'deadlines');
  expect(deadlines.split('\n')[1]).toMatch(/^deadline +partitions +sectors \(faults\) +proven partitions$/);
  // The two pre-sealed sectors sit in one partition of one deadline.
  expect(deadlines).toMatch(/\n\d+( \(current\))? +1 +2 \(0\) +\d\n/);
  expect(await ledger('proving', 'faults')).toBe('Miner: t01000\ndeadline  partition  sectors\n');
}, 60_000);

test('proving pause and resume flip the window PoSt scheduler', async () => {
  expect(await ledger('proving', 'pause')).toBe('Paused window PoSt of t01000: paused\n');
  expect(await ledger('proving', 'info', '--miner', 't01000')).toContain('Proving:                 paused');
  expect(await ledger('proving', 'resume')).toBe('Resumed window PoSt of t01000: running\n');
}, 60_000);

test('an unknown miner is refused with the node message', async () => {
  const run = await runLedger(['miner', 'sectors', 'list', '--miner', 't09999'], { env });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('t09999');
}, 60_000);

type TipSetJson = { Height: number; Cids: unknown[] };

/** Epochs between `from` and the head that have no tipset (null rounds: nobody mined that round). */
async function nullRoundsSince(from: number): Promise<number[]> {
  const missed: number[] = [];
  let tipset = await devnet.rpc<TipSetJson & { Blocks: { Parents: unknown[] }[] }>('ChainHead');
  while (tipset.Height > from) {
    const parent = await devnet.rpc<typeof tipset>('ChainGetTipSet', [tipset.Blocks[0]?.Parents]);
    for (let h = parent.Height + 1; h < tipset.Height; h++) missed.push(h);
    tipset = parent;
  }
  return missed;
}

/** Polls `read` every 2 s until `done` holds; fails naming `what` after `ms`. */
async function until<T>(what: string, ms: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const stopAt = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > stopAt) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

test(
  'miner init creates a second miner the node runs; two pledged sectors are sealed, proven and give it 4 KiB of power',
  async () => {
    const owner = devnet.accounts[0]?.address as string;
    const start = (await devnet.rpc<TipSetJson>('ChainHead')).Height;
    const loop = devnet.node.miners?.miningLoop() as MiningLoop;
    const skippedBefore = loop.skippedRounds;
    const init = await ledger('init', '--owner', owner);
    expect(init).toMatch(/Created worker key t3[a-z0-9]+; funding it with [\d.]+ FIL from /);
    // The new worker key's account takes the next ID, the miner the one after.
    const created = /New miners address is: (t0\d+) \(t2[a-z0-9]+\)\n/.exec(init)?.[1] as string;
    expect(created).toBe('t01002');
    expect(init).toContain(`Miner ${created} is running in the node`);
    const miners = await devnet.rpc<{ Address: string }[]>('StorageMinerList');
    expect(miners.map((miner) => miner.Address)).toEqual(['t01000', created]);
    expect(await ledger('info', '--miner', created)).toContain(`Miner: ${created} (2.0 KiB sectors)`);

    expect(await ledger('sectors', 'pledge', '--miner', created)).toBe('Created CC sector: 0\n');
    expect(await ledger('sectors', 'list', '--miner', created)).toMatch(
      new RegExp(`^Miner: ${created}\nID +State +OnChain +Activation +Expiration\n0 +\\w+ +NO\n$`),
    );
    const sealing = await ledger('sectors', 'status', '0', '--miner', created, '--on-chain-info');
    expect(sealing).toMatch(/^SectorID:\t0\nStatus:\t\t\w+\n/);
    expect(sealing).toContain('OnChain Info\n\tnot on chain yet\n');

    // A second sector; both go through PC, pre-commit, seed, C2 and prove-commit (PoRep verified on chain).
    expect(await ledger('sectors', 'pledge', '--miner', created)).toBe('Created CC sector: 1\n');
    const list = await until(
      'both sectors Proving',
      20 * 60_000,
      () => ledger('sectors', 'list', '--miner', created),
      (text) => (text.match(/ Proving /g) ?? []).length === 2,
    );
    expect(list).toMatch(/\n0 +Proving +YES +\d+ +\d+\n1 +Proving +YES +\d+ +\d+\n$/);
    // Sealing ran in its own process below the node's priority: block production missed no round
    // (null rounds from lost elections — e^-5 a round for a lone miner — are not misses).
    const sealed = (await devnet.rpc<TipSetJson>('ChainHead')).Height;
    const nullRounds = await nullRoundsSince(start);
    const skipped = loop.skippedRounds - skippedBefore;
    process.stderr.write(
      `epochs ${start}..${sealed} while sealing two sectors: rounds missed ${skipped}, null rounds ${JSON.stringify(nullRounds)}\n`,
    );
    expect(skipped).toBe(0);
    type Power = { MinerPower: { RawBytePower: string } };
    // Meanwhile the genesis miner has proven its own deadlines: no faults, its 4 KiB intact.
    expect(await ledger('proving', 'faults')).toBe('Miner: t01000\ndeadline  partition  sectors\n');
    const genesisPower = await devnet.rpc<Power>('StateMinerPower', [devnet.miner.address, null]);
    expect(genesisPower.MinerPower.RawBytePower).toBe('4096');

    // A second node syncs all of it from genesis, validating every block (PoRep included), to the same state.
    const onChain = await withSyncedFollower(devnet, 10 * 60_000, async (follower, tipSet) => {
      const state = await follower.chain!.states.stateOf(tipSet);
      // Both sectors are on chain in the state the follower computed itself.
      const tree = StateTree.load(follower.chain!.chain.blockstore, state.stateRoot);
      return minerAllSectors(tree, Address.fromString(created)).map((sector) => sector.sectorNumber);
    });
    expect(onChain).toEqual([0n, 1n]);
  },
  35 * 60_000,
);

/**
 * Up to four more proving periods (13 minutes each at 4 s blocks): run with LEDGER_E2E_LONG=1. CI
 * runs the suites one after another on 2 cores and keeps to the story above; the same transitions
 * are checked on the VM in test/vm/miner/lifecycle.test.ts, fee included.
 */
const longTest = process.env.LEDGER_E2E_LONG === '1' ? test : test.skip;

longTest(
  'the new miner wins blocks; paused, it turns faulty, loses its power and pays the fault fee; resumed, it recovers',
  async () => {
    const created = 't01002';
    type Power = { MinerPower: { RawBytePower: string } };
    // Power arrives with the sectors' first window PoSt, sent by the node's scheduler (within a proving period).
    const power = await until(
      'the new miner has power',
      15 * 60_000,
      () => devnet.rpc<Power>('StateMinerPower', [created, null]),
      (p) => p.MinerPower.RawBytePower !== '0',
    );
    expect(power.MinerPower.RawBytePower).toBe('4096');
    // Its power counts for elections `winningPoStLookback` (40) epochs later: then it wins blocks.
    const poweredAt = devnet.node.chain!.chain.head().height;
    const faultsOf = async () => bitFieldFromLotusJson(await devnet.rpc('StateMinerFaults', [created, null]));
    const won = await until(
      'a block mined by the new miner',
      10 * 60_000,
      async () => minedBy(created, poweredAt),
      (heights) => heights.length > 0,
    );
    process.stderr.write(`power at epoch ${poweredAt}; ${created} mined blocks at ${JSON.stringify(won)}\n`);

    // A full proving period of proving: each deadline holding its sectors gets a window PoSt in
    // every period (seen in StateMinerDeadlines while the deadline is open), with no faults.
    const policy = devnet.node.chain!.chain.params.minerPolicy;
    const [period, window] = [policy.wPoStProvingPeriod, policy.wPoStChallengeWindow];
    await until(
      'a proving period of proving',
      15 * 60_000,
      async () => devnet.node.chain!.chain.head().height,
      (height) => height > poweredAt + period + 2n * window,
    );
    const proven = await provenDeadlines(created, poweredAt - window);
    process.stderr.write(`${created} window PoSts (deadline: opening epochs): ${JSON.stringify(proven)}\n`);
    expect(proven.length).toBeGreaterThan(0);
    for (const deadline of proven) expect(deadline.missed).toEqual([]);
    for (const deadline of proven) expect(deadline.proven.length).toBeGreaterThanOrEqual(2);
    expect((await faultsOf()).isEmpty()).toBe(true);
    expect((await devnet.rpc<Power>('StateMinerPower', [created, null])).MinerPower.RawBytePower).toBe('4096');

    // Paused, the miner's deadline closes unproven: its sectors turn faulty and its power goes.
    expect(await ledger('proving', 'pause', '--miner', created)).toBe(`Paused window PoSt of ${created}: paused\n`);
    await until('the paused miner faulty', 15 * 60_000, faultsOf, (faults) => faults.size === 2n);
    const faultyAt = devnet.node.chain!.chain.head().height;
    expect((await devnet.rpc<Power>('StateMinerPower', [created, null])).MinerPower.RawBytePower).toBe('0');
    expect(await ledger('proving', 'faults', '--miner', created)).toMatch(
      new RegExp(`^Miner: ${created}\ndeadline  partition  sectors\n\\d+ +0 +0\n\\d+ +0 +1\n$`),
    );
    // Still faulty when the deadline closes a proving period later, it pays the continued-fault fee:
    // the deadline cron burns it from the miner's balance (a send to t099 in the cron's trace).
    await until(
      'a proving period after the faults',
      15 * 60_000,
      async () => devnet.node.chain!.chain.head().height,
      (height) => height > faultyAt + period + 2n,
    );
    const fees = await burnsBy(created, faultyAt + period - 8n, faultyAt + period + 2n);
    process.stderr.write(`faulty from epoch ${faultyAt}; fees burnt ${JSON.stringify(fees)}\n`);
    expect(fees).toHaveLength(1);
    expect(BigInt(fees[0]?.value as string)).toBeGreaterThan(0n);
    // Resumed, it declares them recovered and proves them in their next window: the power comes back.
    expect(await ledger('proving', 'resume', '--miner', created)).toBe(`Resumed window PoSt of ${created}: running\n`);
    await until(
      'the power back',
      15 * 60_000,
      () => devnet.rpc<Power>('StateMinerPower', [created, null]),
      (p) => p.MinerPower.RawBytePower === '4096',
    );
    expect((await faultsOf()).isEmpty()).toBe(true);
    expect(devnet.node.miners!.windowPost(Address.fromString(created)).status().recoveries.length).toBeGreaterThan(0);
  },
  80 * 60_000,
);

/** Heights above `after` with a block mined by `miner`, on the node's chain. */
function minedBy(miner: string, after: bigint): number[] {
  const chain = devnet.node.chain!.chain;
  const heights: number[] = [];
  for (let tipSet = chain.head(); tipSet.height > after; tipSet = chain.loadTipSet(tipSet.parents)) {
    if (tipSet.blocks.some((block) => block.miner.toString() === miner)) heights.push(Number(tipSet.height));
  }
  return heights;
}

/**
 * For each deadline of `miner` holding sectors, the opening epochs of its windows that closed after
 * `since`, split by whether StateMinerDeadlines showed a PoSt submission while the window was open.
 */
async function provenDeadlines(miner: string, since: bigint) {
  const chain = devnet.node.chain!.chain;
  const {
    wPoStProvingPeriod: period,
    wPoStChallengeWindow: window,
    wPoStPeriodDeadlines: count,
  } = chain.params.minerPolicy;
  const current = await devnet.rpc<{ PeriodStart: number }>('StateMinerProvingDeadline', [miner, null]);
  const head = chain.head().height;
  const result: { deadline: number; proven: number[]; missed: number[] }[] = [];
  for (let index = 0; index < Number(count); index++) {
    // Lotus JSON: a deadline without partitions is null.
    const partitions = await devnet.rpc<unknown[] | null>('StateMinerPartitions', [miner, index, null]);
    if (partitions === null || partitions.length === 0) continue;
    const entry = { deadline: index, proven: [] as number[], missed: [] as number[] };
    let open = BigInt(current.PeriodStart) + BigInt(index) * window;
    while (open + window > head) open -= period;
    for (; open + window > since; open -= period) {
      let submitted = false;
      for (let height = open + 1n; height < open + window && !submitted; height++) {
        const tipSet = chain.getTipSetByHeight(height, chain.head(), false);
        if (tipSet.height !== height) continue;
        const deadlines = await devnet.rpc<{ PostSubmissions: unknown }[]>('StateMinerDeadlines', [
          miner,
          tipSetKeyToLotusJson(tipSet.key),
        ]);
        submitted = !bitFieldFromLotusJson(deadlines[index]?.PostSubmissions as never).isEmpty();
      }
      (submitted ? entry.proven : entry.missed).push(Number(open));
    }
    result.push(entry);
  }
  return result;
}

type TraceJson = { Msg: { From: string; To: string; Value: string }; Subcalls: TraceJson[] | null };

/** Sends from `miner` to the burnt-funds actor in the traces of the tipsets at heights [from, to]. */
async function burnsBy(miner: string, from: bigint, to: bigint): Promise<{ height: number; value: string }[]> {
  const chain = devnet.node.chain!.chain;
  const burns: { height: number; value: string }[] = [];
  const visit = (height: number, trace: TraceJson): void => {
    if (trace.Msg.From === miner && trace.Msg.To === 't099') burns.push({ height, value: trace.Msg.Value });
    for (const sub of trace.Subcalls ?? []) visit(height, sub);
  };
  for (let height = from; height <= to; height++) {
    const tipSet = chain.getTipSetByHeight(height, chain.head(), false);
    if (tipSet.height !== height) continue;
    const computed = await devnet.rpc<{ Trace: { ExecutionTrace: TraceJson }[] }>('StateCompute', [
      Number(height),
      [],
      tipSetKeyToLotusJson(tipSet.key),
    ]);
    for (const entry of computed.Trace) visit(Number(height), entry.ExecutionTrace);
  }
  return burns;
}
