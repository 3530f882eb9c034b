/**
 * Value moving through a contract, as StateReplay and StateCompute show it over RPC on a real chain
 * (SQLite chain store, executed tipsets, the EVM actor running solc-compiled Solidity): alice, an
 * f1 account, sends InvokeContract (3844450837) with 5 FIL to the Vault, which pays it on to bob
 * (an f1 account, reached at his masked ID). Both calls are value-carrying entries of the Lotus
 * JSON trace (filecoin-project/lotus `api/api_full.go` InvocResult, `chain/types/execresult.go`
 * ExecutionTrace), and bob's balance grows by the amount. Also PREVRANDAO: what a transaction reads
 * is the beacon randomness StateGetRandomnessFromBeacon gives for its tipset, and a call that does
 * not execute the opcode draws none (StateCall runs a head+1 epoch whose beacon entry does not exist).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Interface } from 'ethers';
import {
  Address,
  CREATE_EXTERNAL_METHOD,
  cidToLotusJson,
  EAM_ADDRESS,
  encodeCbor,
  ethAddressFromAddress,
  INVOKE_CONTRACT_METHOD,
  type SignedMessage,
  setDefaultNetwork,
  signedMessageCid,
  tipSetKeyToLotusJson,
} from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import { unwrapBytes } from '../../src/vm/actors/evm/host.js';
import { closeEvmWorker } from '../../src/vm/evm/interpreter.js';
import { eamReturn } from '../../src/vm/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { transferJson } from '../helpers/message-json.js';
import { message, signSecp } from '../helpers/messages.js';
import { compileVault } from '../helpers/vault-contract.js';
import { compileSolidity, SOLIDITY_HEADER } from '../vm/evm/solidity.js';
import { call } from './harness.js';

const { alice, bob } = keys;
const vault = compileVault();
const abi = new Interface(vault.abi as never);

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;
let nonce = 0n;

beforeAll(async () => {
  s = await startChainServer({ chain: { beaconEveryEpoch: true } });
});
afterAll(async () => {
  await s.close();
  closeEvmWorker();
  setDefaultNetwork('f');
});

async function result<T = Json>(method: string, params: unknown[] = []): Promise<T> {
  const answer = (await call(s.url(1), `Filecoin.${method}`, params)) as Json;
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result as T;
}

function fromAlice(to: Address, method: bigint, params: Uint8Array, value = 0n): SignedMessage {
  return signSecp(
    alice,
    message({ from: alice.address, to, method, params, value, nonce: nonce++, gasLimit: 2_000_000_000n }),
  );
}

/** Every call of a trace, depth first: the message, then its subcalls. */
function flatten(trace: Json): Json[] {
  return [trace, ...(trace.Subcalls ?? []).flatMap(flatten)];
}

test('an f1 account invokes a contract with value and the contract pays an f1 account: both are value-carrying trace entries', async () => {
  const deploy = fromAlice(EAM_ADDRESS, CREATE_EXTERNAL_METHOD, encodeCbor(vault.bytecode));
  await s.t.mine([{ secp: [deploy] }]);
  await s.t.mine();
  const deployed = await result('StateSearchMsg', [null, cidToLotusJson(signedMessageCid(deploy)), -1, true]);
  expect(deployed.Receipt.ExitCode).toBe(0);
  const created = eamReturn.decode(Buffer.from(deployed.Receipt.Return, 'base64'));
  const contract = Address.newId(created.actorId);

  const lookupId = async (address: Address) =>
    Address.fromString(await result<string>('StateLookupID', [address.toString(), null]));
  const [aliceId, bobId] = [await lookupId(alice.address), await lookupId(bob.address)];
  const bobBefore = BigInt(await result<string>('WalletBalance', [bob.address.toString()]));
  const amount = 5n * FIL;
  const calldata = abi.encodeFunctionData('pay', [ethAddressFromAddress(bobId)]);
  const pay = fromAlice(contract, INVOKE_CONTRACT_METHOD, encodeCbor(fromHex(calldata.slice(2))), amount);
  const included = await s.t.mine([{ secp: [pay] }]);
  await s.t.mine();
  const payCid = cidToLotusJson(signedMessageCid(pay));

  const replay = await result('StateReplay', [null, payCid]);
  expect(replay.MsgCid).toEqual(payCid);
  expect(replay.MsgRct.ExitCode).toBe(0);
  const compute = await result('StateCompute', [Number(included.height), [], tipSetKeyToLotusJson(included.key)]);
  const computed = (compute.Trace as Json[]).find((entry) => entry.MsgCid['/'] === payCid['/'])!;
  expect(computed).toBeDefined();

  for (const trace of [replay.ExecutionTrace, computed.ExecutionTrace]) {
    // The top-level call: alice's message to the contract, InvokeContract, with the value (the FVM
    // traces the sender by ID: ref-fvm `fvm/src/trace`).
    expect(trace.Msg).toMatchObject({
      From: aliceId.toString(),
      To: contract.toString(),
      Value: amount.toString(),
      Method: Number(INVOKE_CONTRACT_METHOD),
    });
    expect(trace.MsgRct.ExitCode).toBe(0);
    // The contract's CALL with value to bob: an entry from the contract to bob's ID, carrying the value.
    const transfers = flatten(trace)
      .slice(1)
      .filter((entry) => entry.Msg.Value !== '0');
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.Msg).toMatchObject({
      From: contract.toString(),
      To: bobId.toString(),
      Value: amount.toString(),
    });
    expect(transfers[0]!.MsgRct.ExitCode).toBe(0);
  }
  expect(computed.ExecutionTrace).toEqual(replay.ExecutionTrace);
  expect(BigInt(await result<string>('WalletBalance', [bob.address.toString()]))).toBe(bobBefore + amount);
});

test('PREVRANDAO is the tipset\'s beacon randomness (DST EvmPrevRandao, entropy "prevrandao"), drawn only when the opcode runs', async () => {
  const randao = compileSolidity(`${SOLIDITY_HEADER}
contract Randao {
  uint256 public drawn;
  function draw() external { drawn = block.prevrandao; }
}
`).Randao!;
  const randaoAbi = new Interface(randao.abi as never);
  const deploy = fromAlice(EAM_ADDRESS, CREATE_EXTERNAL_METHOD, encodeCbor(randao.bytecode));
  await s.t.mine([{ secp: [deploy] }]);
  await s.t.mine();
  const deployed = await result('StateSearchMsg', [null, cidToLotusJson(signedMessageCid(deploy)), -1, true]);
  expect(deployed.Receipt.ExitCode).toBe(0);
  const contract = Address.newId(eamReturn.decode(Buffer.from(deployed.Receipt.Return, 'base64')).actorId);

  const calldata = (name: string) => encodeCbor(fromHex(randaoAbi.encodeFunctionData(name, []).slice(2)));
  const draw = fromAlice(contract, INVOKE_CONTRACT_METHOD, calldata('draw'));
  const included = await s.t.mine([{ secp: [draw] }]);
  await s.t.mine();
  const receipt = await result('StateSearchMsg', [null, cidToLotusJson(signedMessageCid(draw)), -1, true]);
  expect(receipt.Receipt.ExitCode).toBe(0);

  // The message ran at its tipset's epoch, with that tipset's beacon entry.
  const expected = await result<string>('StateGetRandomnessFromBeacon', [
    10,
    Number(included.height),
    Buffer.from('prevrandao').toString('base64'),
    tipSetKeyToLotusJson(included.key),
  ]);
  const read = await result('StateCall', [
    transferJson(alice.address.toString(), contract.toString(), 0n, {
      Method: Number(INVOKE_CONTRACT_METHOD),
      Params: Buffer.from(calldata('drawn')).toString('base64'),
      GasLimit: 2_000_000_000,
    }),
    null,
  ]);
  expect(read.MsgRct.ExitCode).toBe(0);
  const word = unwrapBytes(Buffer.from(read.MsgRct.Return, 'base64'));
  expect(Buffer.from(word).toString('base64')).toBe(expected);
});
