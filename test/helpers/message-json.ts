/**
 * A transfer in Lotus JSON as RPC clients send it to MpoolPushMessage and the Gas* methods: nonce
 * and gas left at zero for the node to fill.
 */
import type { MessageJson } from '../../src/types/index.js';

export function transferJson(from: string, to: string, value: bigint, fields: Partial<MessageJson> = {}): MessageJson {
  return {
    Version: 0,
    To: to,
    From: from,
    Nonce: 0,
    Value: value.toString(),
    GasLimit: 0,
    GasFeeCap: '0',
    GasPremium: '0',
    Method: 0,
    Params: null,
    ...fields,
  } as MessageJson;
}
