/**
 * `ledger miner …` against a running devnet (the built CLI, `npm run build:ts` first): the genesis
 * miner's info and proving state, pausing its window PoSt, `miner init` creating a second miner that
 * the node then runs, and a pledged sector entering its sealing pipeline.
 */
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { runLedger } from '../helpers/ledger-cli.js';

let devnet: Devnet;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 2000, accounts: 2 });
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

test('miner init creates a second miner the node runs, and sectors pledge starts sealing for it', async () => {
  const owner = devnet.accounts[0]?.address as string;
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
}, 300_000);
