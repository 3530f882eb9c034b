import { ChainStore } from '../../src/chain/index.js';
import { lookbackForRound } from '../../src/consensus/index.js';
import { PARAMS } from '../helpers/genesis.js';
import { TestChain } from '../helpers/test-chain.js';

describe('lookbackForRound (Lotus GetLookbackTipSetForRound)', () => {
  test('the state after the tipset `winningPoStLookback` rounds back, across null rounds; genesis for early rounds', async () => {
    // A chain with a lookback of 3 epochs: g, t1, t2, (null 3), t4, t5.
    const { db, chain: genesisChain } = TestChain.create();
    const chain = ChainStore.open({ db, params: { ...PARAMS, winningPoStLookback: 3n } });
    expect(chain.genesis.equals(genesisChain.genesis)).toBe(true);
    const t = new TestChain(db, chain);
    const g = chain.genesis;
    const t1 = (await t.add(g, [{ ticket: '1' }])).tipSet;
    const t2 = (await t.add(t1, [{ ticket: '2' }])).tipSet;
    const t4 = (await t.add(t2, [{ ticket: '4' }], 4n)).tipSet;
    const t5 = (await t.add(t4, [{ ticket: '5' }])).tipSet;

    const round6 = await lookbackForRound(chain, t.states, t5, 6n);
    expect(round6.tipSet.equals(t2)).toBe(true);
    expect(round6.stateRoot.equals((await t.states.stateOf(t2)).stateRoot)).toBe(true);
    expect((await lookbackForRound(chain, t.states, t5, 7n)).tipSet.equals(t4)).toBe(true);
    // Round 4 looks back to round 1.
    expect((await lookbackForRound(chain, t.states, t2, 4n)).tipSet.equals(t1)).toBe(true);
    const early = await lookbackForRound(chain, t.states, t1, 2n);
    expect(early.tipSet.equals(g)).toBe(true);
    expect(early.stateRoot.equals(g.parentStateRoot)).toBe(true);
    // More null rounds than the lookback after the base: the base and the state it computes (as Lotus).
    expect((await lookbackForRound(chain, t.states, g, 50n)).tipSet.equals(g)).toBe(true);
    const beyond = await lookbackForRound(chain, t.states, t1, 10n);
    expect(beyond.tipSet.equals(t1)).toBe(true);
    expect(beyond.stateRoot.equals((await t.states.stateOf(t1)).stateRoot)).toBe(true);
    expect(beyond.stateRoot.equals(t2.parentStateRoot)).toBe(true);
    db.close();
  });
});
