/**
 * A devnet from nothing: genesis with a pre-sealed miner, then the mining loop producing tipsets
 * with real election proofs, real winning PoSt and BLS block signatures, read back over HTTP
 * JSON-RPC; then a stop and a restart on the same repo that resumes from the persisted head.
 *
 * The block time is a parameter (LEDGER_E2E_BLOCK_TIME_MS, default 4000): winning PoSt takes
 * seconds on a busy machine, and blocks that take longer than an epoch simply come late.
 */
import { BlockValidator } from '../../src/consensus/index.js';
import {
  type BlockHeaderJson,
  blockHeaderFromLotusJson,
  blockSigningBytes,
  SignatureType,
  type TipSetJson,
} from '../../src/types/index.js';
import { verifySignature } from '../../src/wallet/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const BLOCK_TIME_MS = Number(process.env.LEDGER_E2E_BLOCK_TIME_MS ?? 4000);
const TIPSETS = 10;
/** Generous: on 2 shared cores a round (PoSt + block + validation) has taken up to ~25 s. */
const TIMEOUT_MS = 20 * 60_000;

let devnet: Devnet | undefined;
afterAll(async () => {
  await devnet?.stop();
});

test(
  `a devnet from nothing produces ${TIPSETS} consecutive tipsets with real proofs, and a restart resumes the chain`,
  async () => {
    devnet = await startDevnet({ blockTimeMs: BLOCK_TIME_MS, keepRepo: true });
    const { repoPath } = devnet;
    const chain = devnet.node.chain!;
    const worker = chain.devnet.worker;
    // Over HTTP: the head and, walking back by parents, every tipset down to genesis. A lost
    // election is a null round (no tipset at that height), so wait for more heights until the
    // chain holds enough tipsets.
    const deadline = Date.now() + TIMEOUT_MS - 120_000;
    let mined: TipSetJson[] = [];
    let genesis: TipSetJson | undefined;
    for (let height = TIPSETS; mined.length < TIPSETS; height += TIPSETS - mined.length) {
      await devnet.waitForHeight(height, deadline - Date.now());
      const head = await devnet.rpc<TipSetJson>('ChainHead', [], 'none');
      const tipSets: TipSetJson[] = [head];
      for (let t = head; t.Height > 0; ) {
        t = await devnet.rpc<TipSetJson>('ChainGetTipSet', [t.Blocks[0]!.Parents], 'none');
        tipSets.push(t);
      }
      mined = tipSets.filter((t) => t.Height > 0).reverse();
      genesis = tipSets[tipSets.length - 1];
    }
    expect(mined.length).toBeGreaterThanOrEqual(TIPSETS);
    // Consecutive: each tipset's parent is the one before it, heights rising.
    for (let i = 1; i < mined.length; i++) {
      expect(mined[i]!.Blocks[0]!.Parents).toEqual(mined[i - 1]!.Cids);
      expect(mined[i]!.Height).toBeGreaterThan(mined[i - 1]!.Height);
    }

    // A fresh validator (nothing cached) re-checks every block: ticket, election, PoSt, signatures, state.
    const validator = new BlockValidator({
      chain: chain.chain,
      states: chain.states,
      beacon: chain.beacon,
      params: chain.params,
    });
    for (const tipSet of mined) {
      for (const json of tipSet.Blocks as BlockHeaderJson[]) {
        expect(json.Miner).toBe('t01000');
        expect(json.ElectionProof!.WinCount).toBeGreaterThanOrEqual(1);
        expect(json.WinPoStProof).not.toBeNull();
        expect(json.WinPoStProof!.length).toBeGreaterThan(0);
        expect(Buffer.from(json.WinPoStProof![0]!.ProofBytes ?? '', 'base64').length).toBe(192);
        expect(json.BlockSig!.Type).toBe(SignatureType.BLS);
        const header = blockHeaderFromLotusJson(json);
        expect(verifySignature(worker, blockSigningBytes(header), header.blockSig!)).toBe(true);
        expect(header.timestamp).toBe(
          chain.chain.genesis.timestamp + BigInt(tipSet.Height) * chain.params.blockDelaySecs,
        );
        const { blsMessages, secpMessages } = chain.chain.blockMessages(header);
        await expect(
          validator.validateBlock({ header, blsMessages, secpkMessages: secpMessages }),
        ).resolves.toBeUndefined();
      }
    }

    // Stop, restart on the same repo: the chain resumes from the persisted head and keeps growing.
    await devnet.stop();
    const stoppedHead = chain.chain.head();
    devnet = await startDevnet({ blockTimeMs: BLOCK_TIME_MS, repo: repoPath });
    const resumed = await devnet.rpc<TipSetJson>('ChainHead', [], 'none');
    expect(resumed.Cids).toEqual(
      JSON.parse(JSON.stringify(stoppedHead.key.cids.map((cid) => ({ '/': cid.toString() })))),
    );
    expect(BigInt(resumed.Height)).toBe(stoppedHead.height);
    expect(await devnet.rpc('ChainGetGenesis', [], 'none')).toEqual(genesis);
    const next = await devnet.waitForHeight(stoppedHead.height + 1n, 180_000);
    // The new tipset descends from the persisted head (through null rounds, if any).
    let ancestor = next;
    while (ancestor.height > stoppedHead.height) ancestor = devnet.node.chain!.chain.loadTipSet(ancestor.parents);
    expect(ancestor.key.equals(stoppedHead.key)).toBe(true);
    await devnet.stop();
    devnet = undefined;
    const { rmSync } = await import('node:fs');
    rmSync(repoPath, { recursive: true, force: true });
  },
  TIMEOUT_MS,
);
