/**
 * `ledger state replay|wait` output, Lotus's line for line, from real InvocResults and MsgLookups
 * (a multisig proposal replayed on a real chain, so the trace has a value-carrying subcall).
 */

import { replayMessage } from '../../src/chain/message-replay.js';
import { LOOKBACK_NO_LIMIT, MessageSearch } from '../../src/chain/message-search.js';
import { formatMsgLookup, formatReplay, parseDuration } from '../../src/cli/commands/state.js';
import { StateTree } from '../../src/state/index.js';
import {
  type Address,
  cidToLotusJson,
  messageReceiptToLotusJson,
  setDefaultNetwork,
  signedMessageCid,
  tipSetKeyToLotusJson,
} from '../../src/types/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { encodeProposeParams, invocResultToLotusJson, MultisigMethod } from '../../src/vm/index.js';
import { FIL, multisigTemplate } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { firstMultisig } from '../helpers/state.js';
import { TestChain } from '../helpers/test-chain.js';

const { alice, bob } = keys;

let t: TestChain;
beforeAll(() => {
  setDefaultNetwork('t');
  t = TestChain.create({ template: multisigTemplate() });
});
afterAll(() => {
  t.close();
  setDefaultNetwork('f');
});

function multisig(): Address {
  return firstMultisig(StateTree.load(t.chain.blockstore, t.chain.head().parentStateRoot));
}

test('state replay prints the receipt, gas and (--show-trace) the call tree, subcalls one tab deeper', async () => {
  const msig = multisig();
  const params = encodeProposeParams(bob.address, 7n * FIL, 0n, new Uint8Array(0));
  const propose = signSecp(
    alice,
    message({ from: alice.address, to: msig, method: MultisigMethod.Propose, params, gasLimit: 100_000_000n }),
  );
  const included = await t.mine([{ secp: [propose] }]);
  await t.mine();
  const result = await replayMessage(t.chain, included, signedMessageCid(propose));
  const json = invocResultToLotusJson(result);
  const gas = result.gasCost;
  const subcall = result.executionTrace.subcalls.find((call) => call.msg.value !== 0n)!;
  expect(formatReplay(json, { showTrace: true, detailedGas: true })).toBe(
    [
      'Replay receipt:',
      'Exit code: 0',
      `Return: ${toHex(result.msgRct.return)}`,
      `Gas Used: ${result.msgRct.gasUsed}`,
      `Base Fee Burn: ${gas.baseFeeBurn}`,
      `Overestimaton Burn: ${gas.overEstimationBurn}`,
      `Miner Penalty: ${gas.minerPenalty}`,
      `Miner Tip: ${gas.minerTip}`,
      `Refund: ${gas.refund}`,
      `Total Message Cost: ${gas.totalCost}`,
      `${alice.address}\t${msig}\t0\t2\t${toHex(params)}\t0\t${toHex(result.msgRct.return)}`,
      ...result.executionTrace.subcalls.map(
        (call) =>
          `\t${call.msg.from}\t${call.msg.to}\t${call.msg.value}\t${call.msg.method}\t${toHex(call.msg.params)}\t${call.msgRct.exitCode}\t${toHex(call.msgRct.return)}`,
      ),
      '',
    ].join('\n'),
  );
  expect(subcall.msg.to.toString()).toBe(bob.address.toString());
  // Without flags: no gas parts, no trace.
  expect(formatReplay(json, {}).split('\n')).toEqual([
    'Replay receipt:',
    'Exit code: 0',
    `Return: ${toHex(result.msgRct.return)}`,
    `Gas Used: ${result.msgRct.gasUsed}`,
    `Total Message Cost: ${gas.totalCost}`,
    '',
  ]);
});

test('state wait prints where the message was executed, and says when it was replaced', async () => {
  const signed = signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 1n, value: FIL }));
  await t.mine([{ secp: [signed] }]);
  const execution = await t.mine();
  const cid = signedMessageCid(signed);
  const lookup = await new MessageSearch({ chain: t.chain }).search(execution, cid, LOOKBACK_NO_LIMIT, false);
  const json = {
    Message: cidToLotusJson(lookup!.message),
    Receipt: messageReceiptToLotusJson(lookup!.receipt),
    ReturnDec: null,
    TipSet: tipSetKeyToLotusJson(lookup!.tipSet.key),
    Height: Number(lookup!.height),
  };
  const cids = `[${execution.key.cids.join(' ')}]`;
  expect(formatMsgLookup(cid, json)).toBe(
    `Executed in tipset: ${cids}\nExit Code: 0\nGas Used: ${lookup!.receipt.gasUsed}\nReturn: \n`,
  );
  const other = signedMessageCid(signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 7n })));
  expect(formatMsgLookup(other, json).split('\n')[0]).toBe(`Message was replaced: ${cid}`);
  expect(formatMsgLookup(cid, null)).toBe('message was not found on chain\n');
});

test('--timeout takes Go durations', () => {
  expect(parseDuration('10m')).toBe(600_000);
  expect(parseDuration('1h30m')).toBe(5_400_000);
  expect(parseDuration('90s')).toBe(90_000);
  expect(() => parseDuration('10 minutes')).toThrow('is not a duration');
});
