/**
 * secp256k1 transfers applied per second into SQLite-backed state: 10,000 signed transfers from
 * 1,000 accounts (10 each, to other accounts), applied as 10 tipsets of two blocks by one
 * TipsetExecutor (as syncing applies tipsets in a row), each tipset's state written to a
 * LedgerDatabase in one transaction. The senders are funded, untimed, by one genesis account in a
 * first tipset (a genesis has room for 900 accounts). Two cases on the same messages:
 *
 * - "transfers with signature checks": every tipset's signatures are recovered off the main thread
 *   (`verifySecpMessageSignatures`, native batch recovery) while the previous tipset is applied;
 * - "transfers without signature checks": application only.
 *
 * Both must end at the same state root. Signing happens before timing.
 *
 *   npm run bench:vm
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CID } from 'multiformats/cid';
import { buildGenesis } from '../src/chain/genesis/index.js';
import { blake2b256, secp256k1 } from '../src/crypto/index.js';
import { LedgerDatabase } from '../src/db/index.js';
import { DEVNET_2K } from '../src/params/index.js';
import { Address, messageSigningBytes, SignatureType, type SignedMessage } from '../src/types/index.js';
import { TipsetExecutor, verifySecpMessageSignatures } from '../src/vm/index.js';
import { applyBenchTipset, benchGenesis } from './bench-genesis.js';
import { assertAgree, type Measurement, report } from './harness.js';

const SENDERS = 1000;
const MESSAGES_PER_SENDER = 10;
const BLOCKS_PER_TIPSET = 2;
const RUNS = 3;
const FIL = 10n ** 18n;
const params = DEVNET_2K;

const encoder = new TextEncoder();
const senderKeys = Array.from({ length: SENDERS }, (_, i) => blake2b256(encoder.encode(`bench-sender-${i}`)));
const senders = senderKeys.map((key) => Address.newSecp256k1(secp256k1.publicKey(key)));
const { template, funderKey, funder } = benchGenesis('bench');

function signTransfer(
  key: Uint8Array,
  from: Address,
  to: Address,
  nonce: bigint,
  value: bigint,
  gasLimit: bigint,
): SignedMessage {
  const message = {
    from,
    to,
    nonce,
    value,
    gasLimit,
    gasFeeCap: 1_000_000n,
    gasPremium: 1000n,
    method: 0n,
    params: new Uint8Array(0),
  };
  return {
    message,
    signature: { type: SignatureType.Secp256k1, data: secp256k1.sign(key, messageSigningBytes(message)) },
  };
}

/** One transfer from the funder to each sender, creating their accounts. */
function signFunding(): SignedMessage[] {
  return senders.map((to, i) => signTransfer(funderKey, funder, to, BigInt(i), 1000n * FIL, 10_000_000n));
}

/** Tipset `round` holds nonce `round` of every sender, split across the blocks. */
function signTipsets(): SignedMessage[][] {
  return Array.from({ length: MESSAGES_PER_SENDER }, (_, round) =>
    senders.map((from, i) =>
      signTransfer(
        senderKeys[i]!,
        from,
        senders[(i * 7 + round + 1) % SENDERS]!,
        BigInt(round),
        1000n + BigInt(i),
        2_000_000n,
      ),
    ),
  );
}

async function apply(
  executor: TipsetExecutor,
  root: CID,
  epoch: bigint,
  baseFee: bigint,
  messages: readonly SignedMessage[],
) {
  const result = await applyBenchTipset(executor, root, epoch, baseFee, messages, BLOCKS_PER_TIPSET);
  if (result.receipts.some((receipt) => receipt.exitCode !== 0n)) throw new Error(`tipset ${epoch}: a transfer failed`);
  return result;
}

async function run(
  funding: SignedMessage[],
  tipsets: SignedMessage[][],
  checkSignatures: boolean,
): Promise<{ seconds: number; root: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-vm-'));
  const database = LedgerDatabase.open(join(dir, 'bench.db'));
  try {
    const genesis = buildGenesis(database.blockstore, template, params);
    const executor = new TipsetExecutor(database.blockstore);
    const funded = await apply(executor, genesis.stateRoot, 1n, params.initialBaseFee, funding);
    let root: CID = funded.stateRoot;
    let baseFee = funded.nextBaseFee;
    const verify = (index: number) =>
      checkSignatures ? verifySecpMessageSignatures(tipsets[index]!, (sender) => sender) : Promise.resolve();
    const started = performance.now();
    let verified = verify(0);
    for (const [index, messages] of tipsets.entries()) {
      await verified;
      if (index + 1 < tipsets.length) verified = verify(index + 1);
      const result = await apply(executor, root, BigInt(index + 2), baseFee, messages);
      root = result.stateRoot;
      baseFee = result.nextBaseFee;
    }
    return { seconds: (performance.now() - started) / 1000, root: root.toString() };
  } finally {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureCase(
  name: string,
  funding: SignedMessage[],
  tipsets: SignedMessage[][],
  checkSignatures: boolean,
): Promise<{ measurement: Measurement; root: string }> {
  const transfers = SENDERS * MESSAGES_PER_SENDER;
  await run(funding, tipsets, checkSignatures); // warm-up
  let best = Number.POSITIVE_INFINITY;
  let root = '';
  for (let i = 0; i < RUNS; i++) {
    const result = await run(funding, tipsets, checkSignatures);
    best = Math.min(best, result.seconds);
    root = result.root;
  }
  const opsPerSec = transfers / best;
  console.error(
    `  ${name}: ${Math.round(opsPerSec).toLocaleString('en-US')} transfers/s (best of ${RUNS}: ${best.toFixed(2)} s)`,
  );
  return { measurement: { case: name, impl: 'ledger-vm', opsPerSec }, root };
}

async function main(): Promise<void> {
  const funding = signFunding();
  const tipsets = signTipsets();
  const withChecks = await measureCase('transfers with signature checks', funding, tipsets, true);
  const withoutChecks = await measureCase('transfers without signature checks', funding, tipsets, false);
  assertAgree('final state root', { withChecks: withChecks.root, withoutChecks: withoutChecks.root });
  const results = [withChecks.measurement, withoutChecks.measurement];
  report(
    'vm',
    results,
    {
      'transfers with/without signature checks': withChecks.measurement.opsPerSec / withoutChecks.measurement.opsPerSec,
    },
    {
      setup: {
        senders: SENDERS,
        transfers: SENDERS * MESSAGES_PER_SENDER,
        tipsets: MESSAGES_PER_SENDER,
        blocksPerTipset: BLOCKS_PER_TIPSET,
        store: 'SQLite (LedgerDatabase, WAL)',
      },
    },
  );
}

await main();
