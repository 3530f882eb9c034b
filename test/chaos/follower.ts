/**
 * Scenarios b and c, on the chain the miner of scenario a built.
 *
 * b: a second node (`ledger daemon --genesis … --bootstrap <miner>`) syncs from the miner and is
 *    killed with SIGKILL at random moments while it catches up; after each kill its database must
 *    pass the integrity check and, restarted, its head must not be behind the last one it showed.
 *    At the end it catches up with the miner and holds the miner's tipset at that height.
 * c: the miner exports a snapshot (ChainExportToFile); `ledger daemon --import-snapshot` into a
 *    fresh repo is killed at a random moment of the import; the repo must pass the integrity check,
 *    the import run again must succeed (or the node start on the import that had committed), and
 *    the node must serve the exported head and its state.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Miner } from './mining.js';
import { NodeProcess, sleep } from './node-process.js';
import { between, type ChaosContext, logFile, type ScenarioRecord } from './record.js';
import { NodeRpc, type TipSetJson } from './rpc.js';

const cidsOf = (tipSet: TipSetJson) => tipSet.Cids.map((c) => c['/']).join(',');

export async function syncScenario(
  context: ChaosContext,
  record: ScenarioRecord,
  miner: Miner,
  kills: number,
): Promise<void> {
  const { ID, Addrs } = await miner.rpc.call<{ ID: string; Addrs: string[] }>('NetAddrsListen');
  const bootstrap = `${Addrs[0]}/p2p/${ID}`;
  const repo = join(context.dir, 'follower');
  const log = logFile(context, 'follower');
  const args = ['daemon', '--api', '0', '--genesis', join(miner.repo, 'genesis.car'), '--bootstrap', bootstrap];
  let lastSeen = -1;
  let midSync = 0;
  for (let cycle = 1; cycle <= kills; cycle++) {
    const node = new NodeProcess('follower', repo, args, log);
    const rpc = new NodeRpc(await node.waitForRpc(60_000));
    const height = (await rpc.head()).Height;
    if (height < lastSeen)
      record.fail(`restart ${cycle - 1}: follower head ${height} is behind the ${lastSeen} it showed`);
    // Kill while it makes progress: once its head has moved past where it was (validated tipsets
    // are added one by one), at a random moment up to 1.5 s later. A follower level with the miner
    // is killed at once.
    const since = Math.max(lastSeen, height);
    const minerHeight = (await miner.rpc.head()).Height;
    const deadline = Date.now() + 30_000;
    while (lastSeen <= since && lastSeen < minerHeight && Date.now() < deadline) {
      lastSeen = Math.max(lastSeen, (await rpc.head().catch(() => undefined))?.Height ?? -1);
      await sleep(25);
    }
    const killAt = Date.now() + between(context, 0, 1_500);
    while (Date.now() < killAt) {
      lastSeen = Math.max(lastSeen, (await rpc.head().catch(() => undefined))?.Height ?? -1);
      await sleep(25);
    }
    const target = (await miner.rpc.head()).Height;
    await node.kill9();
    record.kills++;
    if (lastSeen < target - 1) midSync++;
    record.checkIntegrity(repo, `follower after kill ${cycle}`);
    context.log(`  kill ${cycle}/${kills}: follower at ${lastSeen}, miner at ${target}`);
  }
  record.note(`${midSync} of ${kills} kills landed while the follower was behind the miner`);

  const node = new NodeProcess('follower', repo, args, log);
  try {
    const rpc = new NodeRpc(await node.waitForRpc(60_000));
    const target = (await miner.rpc.head()).Height;
    const deadline = Date.now() + 180_000;
    let height = -1;
    while (Date.now() < deadline && height < target) {
      height = (await rpc.head().catch(() => undefined))?.Height ?? height;
      await sleep(250);
    }
    if (height < target) {
      record.fail(`the follower did not catch up with the miner (at ${height}, miner at ${target}) within 180 s`);
    } else {
      const ours = await rpc.call<TipSetJson>('ChainGetTipSetByHeight', [target, null]);
      const theirs = await miner.rpc.call<TipSetJson>('ChainGetTipSetByHeight', [target, null]);
      if (cidsOf(ours) !== cidsOf(theirs)) record.fail(`the follower holds another tipset at ${target} than the miner`);
      else record.note(`the follower caught up: same tipset as the miner at ${target}`);
    }
  } finally {
    await node.stop();
  }
  record.checkIntegrity(repo, 'follower after a clean stop');
}

export async function snapshotScenario(
  context: ChaosContext,
  record: ScenarioRecord,
  miner: Miner,
  kills: number,
): Promise<void> {
  const file = join(context.dir, 'snapshot.car');
  const head = await miner.rpc.head();
  const exported = await miner.rpc.call<{ Height: number }>(
    'ChainExportToFile',
    [file, null, false, head.Cids],
    300_000,
  );
  const account = miner.walletSenders[0] as string;
  const wantActor = JSON.stringify(await miner.rpc.call('StateGetActor', [account, head.Cids]));
  context.log(`  exported the chain at height ${exported.Height}`);
  let importMs = 1_000;
  for (let cycle = 1; cycle <= kills; cycle++) {
    const repo = join(context.dir, `import-${cycle}`);
    mkdirSync(repo);
    copyFileSync(join(miner.repo, 'devnet.json'), join(repo, 'devnet.json'));
    const log = logFile(context, `import-${cycle}`);
    const importArgs = ['daemon', '--api', '0', '--import-snapshot', file];
    const first = new NodeProcess('importer', repo, importArgs, log);
    const started = await first.waitForLine((line) => line.startsWith('Importing snapshot'), 60_000);
    if (started === undefined) {
      record.fail(`import ${cycle} did not start: ${first.tail(5)}`);
      await first.kill9();
      continue;
    }
    const importStarted = Date.now();
    const finished = first.waitForLine((line) => line.startsWith('Imported '), 600_000);
    const delay = between(context, 0, 0.9 * importMs);
    const landed = await Promise.race([sleep(delay).then(() => 'mid-import'), finished.then(() => 'after the import')]);
    if (landed === 'after the import') importMs = Math.max(100, Date.now() - importStarted);
    await first.kill9();
    record.kills++;
    const store = record.checkIntegrity(repo, `import ${cycle} after the kill`);
    const committed = store.headHeight !== undefined && store.headHeight > 0;
    // An import that committed is not run again: the repo then holds the chain already.
    const again = new NodeProcess('importer', repo, committed ? ['daemon', '--api', '0'] : importArgs, log);
    // How long an import takes here, from its first progress line to its last: the next kill's range.
    const timing = committed
      ? undefined
      : again
          .waitForLine((line) => line.startsWith('Importing snapshot'), 60_000)
          .then(async () => {
            const importStarted = Date.now();
            if ((await again.waitForLine((line) => line.startsWith('Imported '), 600_000)) !== undefined) {
              importMs = Math.max(100, Date.now() - importStarted);
            }
          });
    try {
      const rpc = new NodeRpc(await again.waitForRpc(300_000));
      await timing;
      const imported = await rpc.head();
      if (cidsOf(imported) !== cidsOf(head)) {
        record.fail(`import ${cycle}: head ${imported.Height} is not the exported tipset at ${head.Height}`);
      }
      const actor = JSON.stringify(await rpc.call('StateGetActor', [account, null]));
      if (actor !== wantActor) record.fail(`import ${cycle}: StateGetActor(${account}) differs from the miner's`);
    } catch (error) {
      record.fail(`import ${cycle}: the repo is not usable after the kill: ${(error as Error).message}`);
    } finally {
      await again.stop();
    }
    record.checkIntegrity(repo, `import ${cycle} after a clean stop`);
    context.log(
      `  kill ${cycle}/${kills} ${landed} (${Math.round(delay)} ms after it began); ${committed ? 'committed before the kill' : 'imported again'}`,
    );
  }
}
