/**
 * The node's pruning switch (src/node/pruning.ts): devnets are archival unless `[Chainstore.Prune]
 * Enable = true`; other networks prune by default; the pruner keeps the configured window.
 */
import { pino } from 'pino';
import { DEFAULT_PRUNE_WINDOW } from '../../src/chain/index.js';
import type { ChainServices } from '../../src/node/chain-services.js';
import { DEFAULT_PRUNE_WINDOW_EPOCHS, parseConfig } from '../../src/node/config.js';
import { startPruning } from '../../src/node/pruning.js';
import { TestChain } from '../helpers/test-chain.js';

const silent = pino({ level: 'silent' });
let t: TestChain;
beforeEach(() => {
  t = TestChain.create();
});
afterEach(() => t.close());

function services(): ChainServices {
  return { db: t.db, chain: t.chain, states: t.states, params: t.chain.params } as ChainServices;
}

test.each([
  ['[Chain]\nNetwork = "devnet"', false],
  ['[Chain]\nNetwork = "devnet"\n[Chainstore.Prune]\nEnable = true', true],
  ['', true],
  ['[Chainstore.Prune]\nEnable = false', false],
])('%j runs the background schedule: %s', async (text, scheduled) => {
  const pruning = startPruning(services(), parseConfig(text, 'config.toml'), silent);
  expect(pruning.schedule !== undefined).toBe(scheduled);
  expect(pruning.pruner.window).toBe(2000n);
  await pruning.stop();
});

test('the pruner keeps the configured window', async () => {
  const pruning = startPruning(services(), parseConfig('[Chainstore.Prune]\nWindow = 500', 'config.toml'), silent);
  expect(pruning.pruner.window).toBe(500n);
  await pruning.stop();
});

test("the config's default window is the pruner's (config.ts keeps its own copy so loading a config pulls in no chain code)", () => {
  expect(BigInt(DEFAULT_PRUNE_WINDOW_EPOCHS)).toBe(DEFAULT_PRUNE_WINDOW);
});
