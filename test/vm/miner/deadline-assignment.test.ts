/**
 * Deadline assignment of new sectors: the scenarios of builtin-actors
 * `actors/miner/tests/deadline_assignment.rs` (partition size 4, mainnet's 48 deadlines) and the
 * sector lifecycle reference's worked example on 2 KiB sectors (partition size 2).
 */
import { MAINNET } from '../../../src/params/index.js';
import { assignDeadlines, type DeadlineSectorCounts } from '../../../src/vm/actors/miner/deadline-assignment.js';
import { deadlineIsMutable } from '../../../src/vm/actors/miner/deadline-info.js';
import { ActorError } from '../../../src/vm/errors.js';
import { ExitCode } from '../../../src/vm/exit-code.js';

const policy = MAINNET.minerPolicy;

interface Spec {
  live: bigint;
  dead: bigint;
  expect: number[];
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function deadlinesOf(specs: readonly (Spec | undefined)[]): (DeadlineSectorCounts | undefined)[] {
  return specs.map((spec) =>
    spec === undefined ? undefined : { liveSectors: spec.live, totalSectors: spec.live + spec.dead },
  );
}

describe('assignDeadlines', () => {
  const cases: [string, number, (Spec | undefined)[]][] = [
    [
      'even assignment and striping',
      10,
      [
        { dead: 0n, live: 0n, expect: [0, 1, 2, 3, 8, 9] },
        { dead: 0n, live: 0n, expect: [4, 5, 6, 7] },
      ],
    ],
    [
      'fill non-full first',
      5,
      [{ dead: 0n, live: 0n, expect: [3, 4] }, undefined, undefined, { dead: 0n, live: 1n, expect: [0, 1, 2] }],
    ],
    [
      'assign to the deadline with the fewest live partitions',
      1,
      [
        { dead: 0n, live: 8n, expect: [] },
        { dead: 5n, live: 7n, expect: [0] },
      ],
    ],
    [
      'avoid increasing max partitions',
      1,
      [
        { dead: 4n, live: 4n, expect: [] },
        { dead: 0n, live: 4n, expect: [0] },
      ],
    ],
    [
      'with several open partitions, the most full first',
      1,
      [
        { dead: 0n, live: 1n, expect: [] },
        { dead: 0n, live: 2n, expect: [0] },
      ],
    ],
    [
      'dead sectors also count',
      1,
      [
        { dead: 0n, live: 1n, expect: [] },
        { dead: 2n, live: 0n, expect: [0] },
      ],
    ],
    [
      'dead sectors really do count',
      1,
      [
        { dead: 1n, live: 0n, expect: [] },
        { dead: 2n, live: 0n, expect: [0] },
      ],
    ],
    [
      'equally full partitions: by live sectors',
      1,
      [
        { dead: 1n, live: 1n, expect: [] },
        { dead: 2n, live: 0n, expect: [0] },
      ],
    ],
  ];

  test.each(cases)('%s (deadline_assignment.rs)', (_name, sectorCount, specs) => {
    const assignment = assignDeadlines(policy, 100n, 4n, deadlinesOf(specs), range(sectorCount));
    expect(assignment).toHaveLength(48);
    const expected = range(48).map((i) => specs[i]?.expect ?? []);
    expect(assignment).toEqual(expected);
  });

  // One deadline takes 5 partitions of 5: 25 sectors, so 48 deadlines take 1200.
  const fresh = () => range(48).map(() => ({ liveSectors: 0n, totalSectors: 0n }));

  test('fails when every deadline reaches its partition limit before all sectors are assigned', () => {
    const assign = () => assignDeadlines(policy, 5n, 5n, fresh(), range(1201));
    expect(assign).toThrow(ActorError);
    expect(assign).toThrow('max partitions limit 5 reached for all deadlines');
    try {
      assign();
    } catch (error) {
      expect((error as ActorError).exitCode).toBe(ExitCode.UsrIllegalState);
    }
  });

  test('succeeds when the assignment completes exactly at every limit', () => {
    const assignment = assignDeadlines(policy, 5n, 5n, fresh(), range(1200));
    expect(assignment.map((sectors) => sectors.length)).toEqual(range(48).map(() => 25));
  });

  test('fails when deadlines held sectors before and all reach their limit', () => {
    const deadlines = range(48).map(() => ({ liveSectors: 1n, totalSectors: 2n }));
    // 1200 − 2·48 = 1104 fit.
    expect(() => assignDeadlines(policy, 5n, 5n, deadlines, range(1105))).toThrow(ActorError);
    expect(assignDeadlines(policy, 5n, 5n, deadlines, range(1104)).flat()).toHaveLength(1104);
  });

  test('the worked example: the first mutable deadline fills a 2 KiB partition, then the next', () => {
    // Period start 100, prove-commit at 1020 (deadline 15): 15 and 16 are immutable.
    const deadlines = range(48).map((i) =>
      deadlineIsMutable(policy, 100n, BigInt(i), 1020n) ? { liveSectors: 0n, totalSectors: 0n } : undefined,
    );
    expect(deadlines[15]).toBeUndefined();
    expect(deadlines[16]).toBeUndefined();
    const assignment = assignDeadlines(policy, 3000n, 2n, deadlines, [1n, 2n, 3n]);
    expect(assignment[0]).toEqual([1n, 2n]);
    expect(assignment[1]).toEqual([3n]);
    expect(assignment.flat()).toHaveLength(3);
  });

  test('no candidate deadline is an assertion failure', () => {
    expect(() => assignDeadlines(policy, 5n, 5n, [undefined, undefined], [0])).toThrow('no deadline');
  });
});
