/**
 * `ledger sync status` text and Go durations, as Lotus prints them (filecoin-project/lotus
 * `cli/sync.go`): one block per worker, Elapsed omitted for idle workers, Error only for errored
 * ones, Target `[] (0)` when nil.
 */
import { formatSyncStatus, heightDiff, workerToShow } from '../../src/cli/commands/sync.js';
import { formatGoDuration } from '../../src/cli/go-duration.js';
import { SyncStage, type SyncStateJson, syncStageName } from '../../src/sync/index.js';

const cid = (s: string) => ({ '/': s });
const tipSet = (height: number, ...cids: string[]) => ({ Cids: cids.map(cid), Blocks: [], Height: height });
const ZERO = '0001-01-01T00:00:00Z';

test('Go duration strings', () => {
  expect(formatGoDuration(0n)).toBe('0s');
  expect(formatGoDuration(243_770_396n)).toBe('243.770396ms');
  expect(formatGoDuration(1_000_201_440n)).toBe('1.00020144s');
  expect(formatGoDuration(123_500_000_000n)).toBe('2m3.5s');
  expect(formatGoDuration(3_723_000_000_000n)).toBe('1h2m3s');
  expect(formatGoDuration(1_500n)).toBe('1.5µs');
  expect(formatGoDuration(999n)).toBe('999ns');
});

test('stage names are Lotus strings', () => {
  expect([0, 1, 2, 3, 4, 5, 6, 9].map(syncStageName)).toEqual([
    'idle',
    'header sync',
    'persisting headers',
    'message sync',
    'complete',
    'error',
    'fetching messages',
    '<unknown: 9>',
  ]);
});

test('sync status prints each worker as Lotus does', () => {
  const state = {
    ActiveSyncs: [
      {
        WorkerID: 3,
        Base: tipSet(120, 'bafyA', 'bafyB'),
        Target: tipSet(120, 'bafyA', 'bafyB'),
        Stage: SyncStage.Complete,
        Height: 120,
        Start: '2026-11-22T07:00:00.000Z',
        End: '2026-11-22T07:00:01.250Z',
        Message: '',
      },
      {
        WorkerID: 4,
        Base: tipSet(120, 'bafyB'),
        Target: tipSet(130, 'bafyC'),
        Stage: SyncStage.Errored,
        Height: 121,
        Start: '2026-11-22T07:00:02.000Z',
        End: '2026-11-22T07:00:02.500Z',
        Message: 'block bafyX is invalid: bad signature',
      },
      { WorkerID: 5, Base: null, Target: null, Stage: SyncStage.Idle, Height: 0, Start: ZERO, End: ZERO, Message: '' },
    ],
    VMApplied: 17,
  } as unknown as SyncStateJson;
  expect(formatSyncStatus(state)).toBe(
    [
      'sync status:',
      'worker 3:',
      '\tBase:\t[bafyA bafyB]',
      '\tTarget:\t[bafyA bafyB] (120)',
      '\tHeight diff:\t0',
      '\tStage: complete',
      '\tHeight: 120',
      '\tElapsed: 1.25s',
      'worker 4:',
      '\tBase:\t[bafyB]',
      '\tTarget:\t[bafyC] (130)',
      '\tHeight diff:\t10',
      '\tStage: error',
      '\tHeight: 121',
      '\tElapsed: 500ms',
      '\tError: block bafyX is invalid: bad signature',
      'worker 5:',
      '\tBase:\t[]',
      '\tTarget:\t[] (0)',
      '\tHeight diff:\t0',
      '\tStage: idle',
      '\tHeight: 0',
      '',
    ].join('\n'),
  );
  expect(heightDiff(state.ActiveSyncs[1]!)).toBe(10);
  // sync wait shows the last worker still working, else the last one.
  expect(workerToShow(state)?.WorkerID).toBe(4);
  expect(workerToShow({ ActiveSyncs: [state.ActiveSyncs[0]!], VMApplied: 0 })?.WorkerID).toBe(3);
});
