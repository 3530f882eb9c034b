/**
 * The Mpool* and Gas* methods over HTTP against a real mining devnet: shapes, nulls, permissions,
 * errors, and a transfer pushed with every gas field "0" being mined.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { JsonRpcError } from '../../src/rpc/index.js';
import type { MessageJson } from '../../src/types/index.js';
import type { Devnet } from '../helpers/devnet.js';
import { transferJson } from '../helpers/message-json.js';
import { startPairedDevnet } from '../helpers/wallet-pair.js';

let devnet: Devnet;
let from: string;
let to: string;

beforeAll(async () => {
  ({ devnet, from, to } = await startPairedDevnet());
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
});

async function rpcError(promise: Promise<unknown>): Promise<JsonRpcError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(JsonRpcError);
    return error as JsonRpcError;
  }
  throw new Error('the call succeeded');
}

const transfer = (fields: Partial<MessageJson> = {}) => transferJson(from, to, 1_500_000_000_000_000_000n, fields);

describe('config', () => {
  test('MpoolGetConfig has Lotus’s shape and defaults; MpoolSetConfig is admin and validated', async () => {
    const config = await devnet.rpc<Record<string, unknown>>('MpoolGetConfig');
    expect(config).toEqual({
      PriorityAddrs: null,
      SizeLimitHigh: 30000,
      SizeLimitLow: 20000,
      ReplaceByFeeRatio: 1.25,
      PruneCooldown: 60000000000,
      GasLimitOverestimation: 1.25,
    });
    const denied = await rpcError(devnet.rpc('MpoolSetConfig', [config], 'write'));
    expect(denied.message).toContain('admin');
    const refused = await rpcError(devnet.rpc('MpoolSetConfig', [{ ...config, ReplaceByFeeRatio: 1.05 }]));
    expect(refused.message).toBe("'ReplaceByFeeRatio' is less than required 1.5 < 1.10");
  });
});

describe('gas estimation', () => {
  test('GasEstimateMessageGas fills zero fields: GasLimit = 1.25 × GasEstimateGasLimit, following the config', async () => {
    const used = await devnet.rpc<number>('GasEstimateGasLimit', [transfer(), null]);
    expect(used).toBeGreaterThan(0);
    const estimated = await devnet.rpc<Record<string, unknown>>('GasEstimateMessageGas', [transfer(), null, null]);
    expect(estimated.GasLimit).toBe(Math.trunc(used * 1.25));
    expect(BigInt(estimated.GasFeeCap as string)).toBeGreaterThan(BigInt(estimated.GasPremium as string));
    expect(estimated.Nonce).toBe(0);

    const config = await devnet.rpc<Record<string, unknown>>('MpoolGetConfig');
    await devnet.rpc('MpoolSetConfig', [{ ...config, GasLimitOverestimation: 1.5 }]);
    try {
      const again = await devnet.rpc<Record<string, unknown>>('GasEstimateMessageGas', [transfer(), null, null]);
      expect(again.GasLimit).toBe(Math.trunc(used * 1.5));
    } finally {
      await devnet.rpc('MpoolSetConfig', [config]);
    }
  });

  test('a failing message is JSON-RPC error 3 with the return data', async () => {
    const error = await rpcError(
      devnet.rpc('GasEstimateGasLimit', [transfer({ Value: '100000000000000000000000' }), null]),
    );
    expect(error.rpcCode).toBe(3);
    expect(error.message).toContain('message execution failed');
    expect(error.data).toMatch(/^0x/);
  });

  test('GasEstimateFeeCap and GasEstimateGasPremium return BigInt strings', async () => {
    const head = await devnet.rpc<{ Blocks: Array<{ ParentBaseFee: string }> }>('ChainHead');
    const feeCap = await devnet.rpc<string>('GasEstimateFeeCap', [transfer({ GasPremium: '5' }), 20, null]);
    expect(BigInt(feeCap)).toBe((BigInt(head.Blocks[0]!.ParentBaseFee) * 2699n) / 256n + 5n);
    const premium = await devnet.rpc<string>('GasEstimateGasPremium', [10, from, 0, null]);
    expect(Number(premium)).toBeGreaterThan(90_000);
  });
});

describe('pushing', () => {
  test('MpoolPushMessage refuses a set nonce, like Lotus', async () => {
    const error = await rpcError(devnet.rpc('MpoolPushMessage', [transfer({ Nonce: 3 }), null]));
    expect(error.message).toContain('MpoolPushMessage expects message nonce to be 0, was 3');
  });

  test('MpoolPushMessage needs the sign permission', async () => {
    const error = await rpcError(devnet.rpc('MpoolPushMessage', [transfer(), null], 'write'));
    expect(error.message).toContain('sign');
  });

  test('a transfer with every gas field "0" is estimated, signed, pooled and mined; a retried UUID returns it', async () => {
    const uuid = '0f0e0d0c-0b0a-4908-8706-050403020100';
    const signed = await devnet.rpc<{ Message: Record<string, unknown>; CID: { '/': string } }>('MpoolPushMessage', [
      transfer(),
      { MaxFee: '0', MsgUuid: uuid },
    ]);
    expect(signed.Message.Nonce).toBe(0);
    expect(signed.Message.GasLimit).toBeGreaterThan(0);
    const again = await devnet.rpc<{ CID: { '/': string } }>('MpoolPushMessage', [transfer(), { MsgUuid: uuid }]);
    expect(again.CID).toEqual(signed.CID);

    const pending = await devnet.rpc<Array<{ CID: { '/': string } }>>('MpoolPending', [null]);
    expect(pending.map((m) => m.CID['/'])).toContain(signed.CID['/']);
    expect(await devnet.rpc('MpoolGetNonce', [from])).toBe(1);

    // Hand-signed, as an exchange does: WalletSignMessage then MpoolPush with the next nonce.
    const message = await devnet.rpc<Record<string, unknown>>('GasEstimateMessageGas', [
      transfer({ Nonce: 1 }),
      null,
      null,
    ]);
    const handSigned = await devnet.rpc<{ CID: { '/': string } }>('WalletSignMessage', [from, message]);
    const cid = await devnet.rpc<{ '/': string }>('MpoolPush', [handSigned]);
    expect(cid).toEqual(handSigned.CID);

    const deadline = Date.now() + 90_000;
    for (;;) {
      const left = await devnet.rpc<unknown[]>('MpoolPending', [[]]);
      if (left.length === 0) break;
      if (Date.now() > deadline) throw new Error('the messages were not mined');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(await devnet.rpc('MpoolGetNonce', [from])).toBe(2);
    expect(await devnet.rpc('MpoolSelect', [null, 0.9])).toBeNull();
  }, 120_000);

  test('MpoolPush refuses a replacement without a 10 % premium bump, naming the premium needed', async () => {
    const nonce = await devnet.rpc<number>('MpoolGetNonce', [from]);
    // A fee cap below the base fee keeps it pending.
    const stuck = { ...transfer({ Nonce: nonce }), GasLimit: 2_000_000, GasFeeCap: '150', GasPremium: '100' };
    await devnet.rpc('MpoolPush', [await devnet.rpc('WalletSignMessage', [from, stuck])]);
    const tooLow = { ...stuck, GasPremium: '110', GasFeeCap: '200' };
    const error = await rpcError(devnet.rpc('MpoolPush', [await devnet.rpc('WalletSignMessage', [from, tooLow])]));
    expect(error.message).toContain('increase GasPremium to 111 from 110');
    const enough = { ...stuck, GasPremium: '111', GasFeeCap: '1000000000' };
    const cid = await devnet.rpc<{ '/': string }>('MpoolPush', [await devnet.rpc('WalletSignMessage', [from, enough])]);
    const pending = await devnet.rpc<Array<{ CID: { '/': string } }>>('MpoolPending', [null]);
    expect(pending.map((m) => m.CID['/'])).toEqual([cid['/']]);
  });
});
