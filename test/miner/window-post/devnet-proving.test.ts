/**
 * End to end on an in-process devnet (2 s epochs): the node's window PoSt scheduler proves the
 * genesis miner's sectors in the first window of each deadline holding them, which shows a
 * submission in `StateMinerDeadlines`; no sector turns faulty and the miner's power stays
 * what it was. Without the scheduler the deadline cron would mark the sectors faulty one period
 * after genesis and remove the miner's power.
 */
import { bitFieldFromLotusJson } from '../../../src/ipld/index.js';
import type { TipSetJson } from '../../../src/types/index.js';
import { type Devnet, startDevnet } from '../../helpers/devnet.js';

/**
 * 2 s epochs: with 1 s epochs on 2 busy cores a round (election, winning PoSt, validation) took ~2.5 s,
 * heads jumped 3-5 epochs and a proof pushed at its window could land after the 4-epoch window closed.
 */
const BLOCK_TIME_MS = Number(process.env.LEDGER_E2E_BLOCK_TIME_MS ?? 2000);
const TIMEOUT_MS = 25 * 60_000;
/** Rounds have taken up to ~25 s on 2 shared cores: a head that does not move for 2 minutes is a stopped chain. */
const STALL_MS = 120_000;

interface MinerPowerJson {
  MinerPower: { RawBytePower: string; QualityAdjPower: string };
}
interface PartitionJson {
  AllSectors: number[];
}

let devnet: Devnet | undefined;
afterAll(async () => {
  await devnet?.stop();
});

test(
  'the window PoSt scheduler proves every deadline holding sectors in its first window: submissions, no faults, power unchanged',
  async () => {
    devnet = await startDevnet({ blockTimeMs: BLOCK_TIME_MS, accounts: 1 });
    const chain = devnet.node.chain!;
    const miner = chain.devnet.miner.toString();
    const policy = chain.params.minerPolicy;
    const startPower = await devnet.rpc<MinerPowerJson>('StateMinerPower', [miner, null]);
    expect(BigInt(startPower.MinerPower.RawBytePower)).toBeGreaterThan(0n);

    const deadlineCount = Number(policy.wPoStPeriodDeadlines);
    const withSectors: number[] = [];
    for (let index = 0; index < deadlineCount; index++) {
      // Lotus answers null for a deadline without partitions.
      const partitions = (await devnet.rpc<PartitionJson[] | null>('StateMinerPartitions', [miner, index, null])) ?? [];
      if (partitions.some((p) => !bitFieldFromLotusJson(p.AllSectors).isEmpty())) withSectors.push(index);
    }
    expect(withSectors.length).toBeGreaterThan(0);

    // Run until every deadline holding sectors has had its first window (each later one is the same decision).
    const window = policy.wPoStChallengeWindow;
    const period = policy.wPoStProvingPeriod;
    const firstHeight = BigInt((await devnet.rpc<TipSetJson>('ChainHead')).Height);
    const periodStart = BigInt(
      (await devnet.rpc<{ PeriodStart: number }>('StateMinerProvingDeadline', [miner, null])).PeriodStart,
    );
    const afterFirstWindow = (index: number) => {
      let open = periodStart + BigInt(index) * window;
      while (open + window <= firstHeight) open += period;
      // One more window: a proof that lands in the window's last epoch shows in the state of the head after it.
      return open + 2n * window;
    };
    const end = withSectors
      .map(afterFirstWindow)
      .sort((a, b) => (a < b ? -1 : 1))
      .at(-1) as bigint;

    // Watch each head: which deadline windows show a post submission while they are open.
    const posted = new Map<number, Set<bigint>>();
    const stopAt = Date.now() + TIMEOUT_MS - 60_000;
    let height = -1n;
    let advancedAt = Date.now();
    while (height < end) {
      const head = await devnet.rpc<TipSetJson>('ChainHead');
      if (BigInt(head.Height) !== height) {
        height = BigInt(head.Height);
        advancedAt = Date.now();
        // At this head, not at whatever head the node has moved on to (whose cron may have reset the window).
        const deadlines = await devnet.rpc<{ PostSubmissions: number[] }[]>('StateMinerDeadlines', [miner, head.Cids]);
        deadlines.forEach((d, index) => {
          if (bitFieldFromLotusJson(d.PostSubmissions).isEmpty()) return;
          const windows = posted.get(index) ?? new Set<bigint>();
          // The window this head is in (or just after) identifies the period of the submission.
          windows.add((height - periodStart - BigInt(index) * window) / period);
          posted.set(index, windows);
        });
        const faults = bitFieldFromLotusJson(await devnet.rpc('StateMinerFaults', [miner, head.Cids]));
        expect({ height, faults: [...faults.values()] }).toEqual({ height, faults: [] });
      }
      if (Date.now() > stopAt) throw new Error(`the devnet reached only height ${height} of ${end} in time`);
      // A miner that lost all its power cannot mine: the chain stops (ERR_CHAIN_NO_POWER in the log).
      if (Date.now() - advancedAt > STALL_MS) throw new Error(`the chain stopped at height ${height}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect([...posted.keys()].sort((a, b) => a - b)).toEqual(withSectors);
    for (const index of withSectors) expect(posted.get(index)?.size).toBe(1);

    const status = devnet.node.miners!.windowPost().status();
    expect(status.submissions.length).toBeGreaterThanOrEqual(withSectors.length);
    // Never twice for one deadline instance.
    const instances = status.submissions.map((s) => `${s.open}/${s.partitions.join(',')}`);
    expect(new Set(instances).size).toBe(instances.length);
    const endPower = await devnet.rpc<MinerPowerJson>('StateMinerPower', [miner, null]);
    expect(endPower.MinerPower).toEqual(startPower.MinerPower);
    expect(bitFieldFromLotusJson(await devnet.rpc('StateMinerFaults', [miner, null])).isEmpty()).toBe(true);
  },
  TIMEOUT_MS,
);
