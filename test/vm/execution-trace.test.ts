/**
 * Lotus JSON of execution results (filecoin-project/lotus `api/api_full.go`,
 * `chain/types/execresult.go`): InvocResult, MsgGasCost, ExecutionTrace and ComputeStateOutput,
 * from a real traced message, in both directions.
 */
import { parseJsonLossless, stringifyJsonLossless } from '../../src/types/index.js';
import {
  computeStateOutputFromLotusJson,
  computeStateOutputToLotusJson,
  invocResultFromLotusJson,
  invocResultToLotusJson,
} from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, standardGenesis } from '../helpers/genesis.js';
import { keys, secpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';

const { alice } = keys;

test('InvocResult, MsgGasCost and ExecutionTrace have Lotus’s current JSON shape and read back', async () => {
  const chain = standardGenesis();
  const signed = signSecp(alice, message({ from: alice.address, to: secpKey('newcomer').address, value: FIL }));
  const result = await applyAt(chain, chain.genesisRoot, 1n, [block([signed])], { trace: true });
  const invocation = result.invocResults[0]!;
  const json = invocResultToLotusJson(invocation);

  expect(Object.keys(json)).toEqual(['MsgCid', 'Msg', 'MsgRct', 'GasCost', 'ExecutionTrace', 'Error', 'Duration']);
  expect(json.MsgCid).toEqual({ '/': result.executedMessages[0]!.cid.toString() });
  expect(json.MsgRct).toEqual({
    ExitCode: 0,
    Return: null,
    GasUsed: Number(result.receipts[0]!.gasUsed),
    EventsRoot: null,
  });
  expect(Object.keys(json.GasCost)).toEqual([
    'Message',
    'GasUsed',
    'BaseFeeBurn',
    'OverEstimationBurn',
    'MinerPenalty',
    'MinerTip',
    'Refund',
    'TotalCost',
  ]);
  expect(json.GasCost.GasUsed).toBe(result.receipts[0]!.gasUsed.toString());
  expect(BigInt(json.GasCost.TotalCost)).toBe(
    BigInt(json.GasCost.BaseFeeBurn) + BigInt(json.GasCost.OverEstimationBurn) + BigInt(json.GasCost.MinerTip),
  );
  expect(json.Error).toBe('');

  const trace = json.ExecutionTrace;
  expect(Object.keys(trace)).toEqual(['Msg', 'MsgRct', 'GasCharges', 'Subcalls', 'InvokedActor']);
  expect(Object.keys(trace.Msg)).toEqual([
    'From',
    'To',
    'Value',
    'Method',
    'Params',
    'ParamsCodec',
    'GasLimit',
    'ReadOnly',
  ]);
  expect(trace.Msg).toMatchObject({ Value: FIL.toString(), Method: 0, Params: null, ParamsCodec: 0, ReadOnly: false });
  expect(trace.MsgRct).toEqual({ ExitCode: 0, Return: null, ReturnCodec: 0 });
  // The recipient was created by the transfer, so the charges include its creation.
  expect(trace.GasCharges!.map((c) => c.Name)).toEqual(
    expect.arrayContaining([
      'OnChainMessage',
      'OnCreateActor',
      'OnActorLookup',
      'OnActorUpdate',
      'OnMethodInvocation',
      'OnValueTransfer',
    ]),
  );
  expect(Object.keys(trace.GasCharges![0]!)).toEqual(['Name', 'tg', 'cg', 'sg', 'tt']);
  const total = trace.GasCharges!.reduce((sum, c) => sum + Number(c.tg), 0);
  expect(Math.abs(total - Number(result.receipts[0]!.gasUsed))).toBeLessThanOrEqual(trace.GasCharges!.length);
  expect(trace.InvokedActor!.State).toMatchObject({ Balance: '0', Nonce: 0, DelegatedAddress: null });
  expect(trace.Subcalls).toBeNull();

  const text = stringifyJsonLossless(json);
  const back = invocResultFromLotusJson(parseJsonLossless(text));
  expect(stringifyJsonLossless(invocResultToLotusJson(back))).toBe(text);

  const output = { root: result.stateRoot, trace: result.invocResults };
  const outputJson = computeStateOutputToLotusJson(output);
  expect(outputJson.Root).toEqual({ '/': result.stateRoot.toString() });
  expect(outputJson.Trace).toHaveLength(result.invocResults.length);
  // Implicit messages (reward, cron) have a zero MsgGasCost with a null Message.
  expect(outputJson.Trace!.at(-1)!.GasCost).toMatchObject({ Message: null, TotalCost: '0' });
  const outputText = stringifyJsonLossless(outputJson);
  expect(
    stringifyJsonLossless(
      computeStateOutputToLotusJson(computeStateOutputFromLotusJson(parseJsonLossless(outputText))),
    ),
  ).toBe(outputText);
});
