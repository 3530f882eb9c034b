/**
 * The message lifecycle an exchange relies on, end to end through HTTP against a real devnet
 * (mining loop on, real proofs and signatures): push with automatic gas, wait, replay with the
 * fee actually paid, the by-hand flow with an independent signer, stuck messages and
 * replace-by-fee, value-carrying traces for multisig and 0x recipients, pool pruning, and local
 * messages surviving a restart.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { blake2b as nobleBlake2b } from '@noble/hashes/blake2.js';
import { Message as IsoMessage } from 'iso-filecoin/message';
import { signMessage as isoSignMessage } from 'iso-filecoin/wallet';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { blake2b256 } from '../../src/crypto/index.js';
import { RpcClient } from '../../src/rpc/index.js';
import { ACTOR_CODES } from '../../src/state/index.js';
import {
  Address,
  type CidJson,
  encodeCbor,
  FILECOIN_PRECISION,
  type MessageJson,
  type SignedMessageJson,
} from '../../src/types/index.js';
import { fromBase64, toBase64 } from '../../src/utils/bytes.js';
import {
  EVM_INVOKE_CONTRACT_METHOD,
  encodeMultisigConstructorParams,
  encodeProposeParams,
  InitMethod,
  MultisigMethod,
} from '../../src/vm/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { transferJson } from '../helpers/message-json.js';

const PROOF_TIMEOUT_MS = 10 * 60_000;
/** Blocks carry real winning PoSt: on a busy 2-core machine an epoch can take 30 s or more. */
const TEST_TIMEOUT_MS = 12 * 60_000;
const FIL = FILECOIN_PRECISION;

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let devnet: Devnet;
let accounts: string[];
/** For StateWaitMsg: a long poll outlives the helper client's 60 s limit. */
let waiter: RpcClient;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 1000, accounts: 12, keepRepo: true });
  accounts = devnet.node.chain!.devnet.accounts.map((a) => a.toString('t'));
  waiter = new RpcClient({ url: devnet.url, token: devnet.token, timeoutMs: TEST_TIMEOUT_MS });
  await devnet.waitForHeight(1, PROOF_TIMEOUT_MS);
}, PROOF_TIMEOUT_MS);
afterAll(() => devnet?.stop());

function cidOf(signed: SignedMessageJson): CidJson {
  return (signed as Json).CID as CidJson;
}

async function waitMsg(cid: CidJson, confidence = 0): Promise<Json> {
  return (await waiter.request('Filecoin.StateWaitMsg', [cid, confidence, -1, true])) as Json;
}

async function balanceAt(address: string, tsk: CidJson[]): Promise<bigint> {
  return BigInt((await devnet.rpc<Json>('StateGetActor', [address, tsk])).Balance);
}

async function parentOf(tsk: CidJson[]): Promise<CidJson[]> {
  return (await devnet.rpc<Json>('ChainGetTipSet', [tsk])).Blocks[0].Parents;
}

/** Value moved by successful trace nodes whose ancestors all succeeded (the exchange rule). */
function transferNodes(trace: Json, okAbove = true): { to: string; value: string }[] {
  const ok = okAbove && trace.MsgRct.ExitCode === 0;
  const here = ok && trace.Msg.Value !== '0' ? [{ to: trace.Msg.To as string, value: trace.Msg.Value as string }] : [];
  return [...here, ...((trace.Subcalls ?? []) as Json[]).flatMap((sub) => transferNodes(sub, ok))];
}

async function idOf(address: string): Promise<string> {
  return devnet.rpc<string>('StateLookupID', [address, null]);
}

/** The transfers of a trace with recipients as ID addresses (traces carry the address as sent). */
async function transfers(trace: Json): Promise<{ to: string; value: string }[]> {
  return Promise.all(transferNodes(trace).map(async ({ to, value }) => ({ to: await idOf(to), value })));
}

test.concurrent(
  'MpoolPushMessage with all gas "0": mined with ExitCode 0, GasLimit = overestimation × gas used, GasCost = what the sender paid',
  async () => {
    const [from, to] = accounts as [string, string];
    const message = transferJson(from, to, 5n * FIL);
    const estimate = BigInt(await devnet.rpc<number>('GasEstimateGasLimit', [message, null]));
    const signed = await devnet.rpc<SignedMessageJson>('MpoolPushMessage', [message, { MaxFee: '0' }], 'sign');
    expect(BigInt(signed.Message.GasLimit)).toBe((estimate * 125n) / 100n);
    expect(BigInt(signed.Message.GasFeeCap)).toBeGreaterThan(0n);
    // GasLimitOverestimation follows the pool config.
    const config = await devnet.rpc<Json>('MpoolGetConfig', []);
    expect(config.GasLimitOverestimation).toBe(1.25);
    await devnet.rpc('MpoolSetConfig', [{ ...config, GasLimitOverestimation: 2 }], 'admin');
    let second: SignedMessageJson;
    let estimate2: bigint;
    try {
      const message2 = transferJson(from, to, FIL);
      estimate2 = BigInt(await devnet.rpc<number>('GasEstimateGasLimit', [message2, null]));
      second = await devnet.rpc<SignedMessageJson>('MpoolPushMessage', [message2, null], 'sign');
    } finally {
      await devnet.rpc('MpoolSetConfig', [config], 'admin');
    }
    expect(BigInt(second.Message.GasLimit)).toBe(estimate2 * 2n);
    expect(Number(second.Message.Nonce)).toBe(Number(signed.Message.Nonce) + 1);

    const lookup = await waitMsg(cidOf(signed));
    expect(lookup.Message).toEqual(cidOf(signed));
    expect(lookup.Receipt.ExitCode).toBe(0);
    // The estimate ran the message with its gas fields unset, so its encoding (and the per-byte
    // inclusion charge) differs a little from the mined one's: the overestimation covers that.
    expect(Number(lookup.Receipt.GasUsed)).toBeGreaterThan(Number(estimate) * 0.98);
    expect(Number(lookup.Receipt.GasUsed)).toBeLessThan(Number(estimate) * 1.02);

    const replay = await devnet.rpc<Json>('StateReplay', [null, cidOf(signed)]);
    expect(replay.MsgCid).toEqual(cidOf(signed));
    expect(replay.MsgRct).toEqual(lookup.Receipt);
    const gas = replay.GasCost;
    const total = BigInt(gas.TotalCost);
    expect(BigInt(gas.BaseFeeBurn) + BigInt(gas.OverEstimationBurn) + BigInt(gas.MinerTip)).toBe(total);
    expect(total + BigInt(gas.Refund)).toBe(BigInt(signed.Message.GasFeeCap) * BigInt(signed.Message.GasLimit));
    // The sender's balance before the inclusion tipset ran and after: value + TotalCost, less what
    // the second message cost when the same tipset carried it too.
    const included = await parentOf(lookup.TipSet);
    const paid = (await balanceAt(from, included)) - (await balanceAt(from, lookup.TipSet));
    const secondLookup = await waitMsg(cidOf(second));
    expect(secondLookup.Receipt.ExitCode).toBe(0);
    const sameTipSet = JSON.stringify(secondLookup.TipSet) === JSON.stringify(lookup.TipSet);
    const secondCost = sameTipSet
      ? FIL + BigInt((await devnet.rpc<Json>('StateReplay', [null, cidOf(second)])).GasCost.TotalCost)
      : 0n;
    expect(paid).toBe(5n * FIL + total + secondCost);
  },
  TEST_TIMEOUT_MS,
);

test.concurrent(
  'by hand: WalletSign + MpoolPush + StateWaitMsg, with the CIDs and signature iso-filecoin computes',
  async () => {
    const from = accounts[2] as string;
    const to = accounts[3] as string;
    const nonce = await devnet.rpc<number>('MpoolGetNonce', [from]);
    const draft = transferJson(from, to, 2n * FIL, { Nonce: nonce });
    const message = await devnet.rpc<MessageJson>('GasEstimateMessageGas', [draft, { MaxFee: '0' }, null]);
    const iso = IsoMessage.fromLotus({ ...message, Params: message.Params ?? '' } as never);
    const signingBytes = iso.cidBytes();
    const signature = await devnet.rpc<Json>('WalletSign', [from, toBase64(signingBytes)], 'sign');
    const key = await devnet.rpc<Json>('WalletExport', [from], 'admin');
    // iso-filecoin signs the same message to the same (deterministic, RFC 6979) signature.
    const isoSignature = isoSignMessage(fromBase64(key.PrivateKey), 'SECP256K1', iso);
    expect(signature.Data).toBe(toBase64(isoSignature.data));
    const cid = await devnet.rpc<CidJson>('MpoolPush', [{ Message: message, Signature: signature }]);
    // The chain CID of a secp256k1 message, computed without the node's code: blake2b-256 of the
    // DAG-CBOR [Message, Signature bytes] as a CIDv1.
    const signedBytes = dagCbor.encode([
      dagCbor.decode(iso.serialize()),
      new Uint8Array([1, ...fromBase64(signature.Data)]),
    ]);
    const expected = CID.createV1(dagCbor.code, Digest.create(0xb220, nobleBlake2b(signedBytes, { dkLen: 32 })));
    expect(cid['/']).toBe(expected.toString());
    const lookup = await waitMsg(cid, 1);
    expect(lookup.Message).toEqual(cid);
    expect(lookup.Receipt.ExitCode).toBe(0);
  },
  TEST_TIMEOUT_MS,
);

test.concurrent(
  'a fee cap below the base fee stays pending across epochs; the same message with more gas replaces it and is mined',
  async () => {
    const from = accounts[4] as string;
    const to = accounts[5] as string;
    const head = await devnet.rpc<Json>('ChainHead', []);
    const baseFee = BigInt(head.Blocks[0].ParentBaseFee);
    const nonce = await devnet.rpc<number>('MpoolGetNonce', [from]);
    const estimated = await devnet.rpc<MessageJson>('GasEstimateMessageGas', [
      transferJson(from, to, FIL, { Nonce: nonce }),
      null,
      null,
    ]);
    // Far below the base fee (which falls at most 12.5 % an epoch), above the network minimum.
    const stuck = { ...estimated, GasFeeCap: (baseFee / 1000n).toString(), GasPremium: '1000' } as MessageJson;
    const stuckSigned = await devnet.rpc<SignedMessageJson>('WalletSignMessage', [from, stuck], 'sign');
    const stuckCid = await devnet.rpc<CidJson>('MpoolPush', [stuckSigned]);
    const start = BigInt(head.Height);
    await devnet.waitForHeight(start + 3n, TEST_TIMEOUT_MS);
    const pending = await devnet.rpc<SignedMessageJson[]>('MpoolPending', [null]);
    expect(pending.map(cidOf)).toContainEqual(stuckCid);
    expect(await devnet.rpc('StateSearchMsg', [null, stuckCid, -1, true])).toBeNull();

    // An exchange watching the original CID: the wait starts while the message is pending.
    const watching = waitMsg(stuckCid);
    // Same nonce, to, from, value; fee cap above the base fee and premium raised past the RBF ratio.
    const replacement = {
      ...stuck,
      GasFeeCap: (baseFee * 2n).toString(),
      GasPremium: '100000',
    } as MessageJson;
    const replacementSigned = await devnet.rpc<SignedMessageJson>('WalletSignMessage', [from, replacement], 'sign');
    const replacementCid = await devnet.rpc<CidJson>('MpoolPush', [replacementSigned]);
    const pool = (await devnet.rpc<SignedMessageJson[]>('MpoolPending', [null])).map(cidOf);
    expect(pool).toContainEqual(replacementCid);
    expect(pool).not.toContainEqual(stuckCid);
    // Waiting on the original CID finds the replacement (allowReplaced), as exchanges see it.
    const lookup = await watching;
    expect(lookup.Message).toEqual(replacementCid);
    expect(lookup.Receipt.ExitCode).toBe(0);
  },
  TEST_TIMEOUT_MS,
);

test.concurrent(
  'a multisig transfer and a transfer to a new 0x recipient are value-carrying trace entries in StateCompute and StateReplay',
  async () => {
    const signer = accounts[6] as string;
    const payee = accounts[7] as string;
    const create = await devnet.rpc<SignedMessageJson>(
      'MpoolPushMessage',
      [
        transferJson(signer, 't01', 20n * FIL, {
          Method: Number(InitMethod.Exec),
          Params: toBase64(
            encodeCbor([
              ACTOR_CODES.multisig,
              encodeMultisigConstructorParams({
                signers: [Address.fromString(signer)],
                numApprovalsThreshold: 1n,
                unlockDuration: 0n,
                startEpoch: 0n,
              }),
            ]),
          ),
        }),
        null,
      ],
      'sign',
    );
    const created = await waitMsg(cidOf(create));
    expect(created.Receipt.ExitCode).toBe(0);
    const [idAddress] = dagCbor.decode(fromBase64(created.Receipt.Return)) as [Uint8Array, Uint8Array];
    const multisig = Address.fromBytes(idAddress).toString('t');

    const propose = await devnet.rpc<SignedMessageJson>(
      'MpoolPushMessage',
      [
        transferJson(signer, multisig, 0n, {
          Method: Number(MultisigMethod.Propose),
          Params: toBase64(encodeProposeParams(Address.fromString(payee), 3n * FIL, 0n, new Uint8Array(0))),
        }),
        null,
      ],
      'sign',
    );
    const evmRecipient = Address.newDelegated(10n, blake2b256(new TextEncoder().encode('exchange e2e')).slice(0, 20));
    const toEvm = await devnet.rpc<SignedMessageJson>(
      'MpoolPushMessage',
      [
        transferJson(signer, evmRecipient.toString('t'), 4n * FIL, { Method: Number(EVM_INVOKE_CONTRACT_METHOD) }),
        null,
      ],
      'sign',
    );
    const proposed = await waitMsg(cidOf(propose));
    const sentToEvm = await waitMsg(cidOf(toEvm));
    expect(proposed.Receipt.ExitCode).toBe(0);
    expect(sentToEvm.Receipt.ExitCode).toBe(0);

    const payeeId = await idOf(payee);
    const replayedMsig = await devnet.rpc<Json>('StateReplay', [null, cidOf(propose)]);
    expect(await transfers(replayedMsig.ExecutionTrace)).toContainEqual({ to: payeeId, value: (3n * FIL).toString() });
    const replayedEvm = await devnet.rpc<Json>('StateReplay', [null, cidOf(toEvm)]);
    const evmId = await idOf(evmRecipient.toString('t'));
    expect(await transfers(replayedEvm.ExecutionTrace)).toEqual([{ to: evmId, value: (4n * FIL).toString() }]);

    // StateCompute over each inclusion tipset: the exchange's way to see every transfer.
    const seen: { to: string; value: string }[] = [];
    for (const lookup of [proposed, sentToEvm]) {
      const included = await parentOf(lookup.TipSet);
      const tipSet = await devnet.rpc<Json>('ChainGetTipSet', [included]);
      const output = await devnet.rpc<Json>('StateCompute', [tipSet.Height, [], included]);
      expect(output.Root).toEqual(
        (await devnet.rpc<Json>('ChainGetTipSet', [lookup.TipSet])).Blocks[0].ParentStateRoot,
      );
      for (const result of output.Trace as Json[]) seen.push(...(await transfers(result.ExecutionTrace)));
    }
    expect(seen).toContainEqual({ to: payeeId, value: (3n * FIL).toString() });
    expect(seen).toContainEqual({ to: evmId, value: (4n * FIL).toString() });
  },
  TEST_TIMEOUT_MS,
);
