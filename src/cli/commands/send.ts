/**
 * `ledger send [options] <to> <amount>`: a transfer (or method call) from the wallet, as Lotus's
 * `lotus send` does it (filecoin-project/lotus `cli/send.go`). Amounts are FIL (`1.5`, `1.5 FIL`)
 * or attoFIL with a suffix. A recipient given as `0x…` or as an f410f address is an Ethereum
 * address: the method is InvokeContract (3844450837, the spec's rule 7) and `--params-hex` bytes
 * are wrapped as a CBOR byte string. `--params-json` is encoded to CBOR here, with the parameter
 * type of the method on the recipient's actor (its code from StateGetActor), as Lotus's
 * `DecodeTypedParamsFromJSON` does. Without `--nonce` the node assigns the nonce and fills the gas
 * (MpoolPushMessage); with it the message is estimated, signed and pushed here (MpoolPush).
 */

import { encode as encodeCbor } from '@ipld/dag-cbor';
import { Command, InvalidArgumentError } from 'commander';
import type { LedgerApi } from '../../rpc/client.js';
import { type ActorName, actorNameOf } from '../../state/index.js';
import {
  Address,
  AddressProtocol,
  addressFromEthAddress,
  CREATE_EXTERNAL_METHOD,
  EAM_ADDRESS,
  INVOKE_CONTRACT_METHOD,
  type Message,
  messageToLotusJson,
  parseFil,
  readJsonCid,
  signedMessageFromLotusJson,
  signedMessageToLotusJson,
} from '../../types/index.js';
import { fromHex } from '../../utils/bytes.js';
import { encodeParamsFromJson, ParamsJsonError } from '../../vm/index.js';
import { connectToNode, globalOptions } from '../node-connection.js';

/** The Ethereum address manager's namespace in f4 addresses. */
const EAM_NAMESPACE = 10;

function bigIntOption(name: string): (value: string) => bigint {
  return (value) => {
    if (!/^\d+$/.test(value))
      throw new InvalidArgumentError(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    return BigInt(value);
  };
}

export interface SendTarget {
  readonly to: Address;
  /** The recipient is an Ethereum address: InvokeContract rules apply. */
  readonly eth: boolean;
}

export function parseSendTarget(text: string): SendTarget {
  if (/^0x/i.test(text)) return { to: addressFromEthAddress(text), eth: true };
  let to: Address;
  try {
    to = Address.fromString(text);
  } catch (error) {
    throw new InvalidArgumentError(`failed to parse target address: ${(error as Error).message}`);
  }
  const eth = to.protocol === AddressProtocol.Delegated && to.payload[0] === EAM_NAMESPACE;
  return { to, eth };
}

export interface SendOptions {
  readonly from?: string;
  readonly gasPremium?: bigint;
  readonly gasFeecap?: bigint;
  readonly gasLimit?: bigint;
  readonly nonce?: bigint;
  readonly method?: bigint;
  readonly paramsJson?: string;
  readonly paramsHex?: string;
}

/**
 * The message `lotus send` builds from its arguments, gas fields 0 unless given. `recipientActor`,
 * the type of the actor at the recipient, is needed for `--params-json` only.
 */
export function buildSendMessage(
  from: Address,
  target: SendTarget,
  amount: bigint,
  options: SendOptions,
  recipientActor?: ActorName,
): Message {
  if (options.paramsJson !== undefined && options.paramsHex !== undefined) {
    throw new InvalidArgumentError('can only specify one of params-json and params-hex');
  }
  let method = options.method ?? 0n;
  let params: Uint8Array = new Uint8Array(0);
  const hex = options.paramsHex === undefined ? undefined : parseHex(options.paramsHex);
  const ethRules = target.eth || (from.protocol === AddressProtocol.Delegated && from.payload[0] === EAM_NAMESPACE);
  if (ethRules) {
    const who = target.eth ? 'messages to Ethereum addresses' : 'messages from f410f addresses';
    if (options.method !== undefined) throw new InvalidArgumentError(`${who} may not specify a method number`);
    if (options.paramsJson !== undefined) throw new InvalidArgumentError(`${who} may not specify json params`);
    if (hex !== undefined && hex.length > 0) params = encodeCbor(hex);
    method = target.to.equals(EAM_ADDRESS) ? CREATE_EXTERNAL_METHOD : INVOKE_CONTRACT_METHOD;
  } else if (options.paramsJson !== undefined) {
    if (recipientActor === undefined) {
      throw new InvalidArgumentError(`--params-json: ${target.to} has no actor whose parameter types are known`);
    }
    try {
      params = encodeParamsFromJson(recipientActor, method, options.paramsJson);
    } catch (error) {
      if (error instanceof ParamsJsonError) throw new InvalidArgumentError(`--params-json: ${error.message}`);
      throw error;
    }
  } else if (hex !== undefined) {
    params = hex;
  }
  return {
    to: target.to,
    from,
    nonce: options.nonce ?? 0n,
    value: amount,
    gasLimit: options.gasLimit ?? 0n,
    gasFeeCap: options.gasFeecap ?? 0n,
    gasPremium: options.gasPremium ?? 0n,
    method,
    params,
  };
}

/** The type of the actor at `address` on the node's head; undefined when there is none (or one we do not run). */
async function actorTypeAt(api: LedgerApi, address: Address): Promise<ActorName | undefined> {
  const actor = await api.StateGetActor(address.toString(), null);
  return actorNameOf(readJsonCid(actor.Code, 'StateGetActor.Code'));
}

function parseHex(text: string): Uint8Array {
  try {
    return fromHex(text.replace(/^0x/i, ''));
  } catch (error) {
    throw new InvalidArgumentError(`--params-hex is not hex: ${(error as Error).message}`);
  }
}

export function sendCommand(): Command {
  return new Command('send')
    .description('Send funds between accounts (or call a method)')
    .argument('<targetAddress>', 'the recipient: an f/t address, or an Ethereum 0x address')
    .argument('<amount>', 'FIL, e.g. 1.5 (or "1500 attofil")')
    .option('--from <address>', 'optionally specify the account to send funds from (default: the wallet default)')
    .option('--gas-premium <attoFIL>', 'specify gas price to use in AttoFIL', bigIntOption('gas-premium'))
    .option('--gas-feecap <attoFIL>', 'specify gas fee cap to use in AttoFIL', bigIntOption('gas-feecap'))
    .option('--gas-limit <gas>', 'specify gas limit', bigIntOption('gas-limit'))
    .option('--nonce <nonce>', 'specify the nonce to use', bigIntOption('nonce'))
    .option('--method <number>', 'specify method to invoke', bigIntOption('method'))
    .option('--params-json <json>', 'specify invocation parameters in json')
    .option('--params-hex <hex>', 'specify invocation parameters in hex')
    .action(async (targetText: string, amountText: string, options: SendOptions, command: Command) => {
      const target = parseSendTarget(targetText);
      let amount: bigint;
      try {
        amount = parseFil(amountText);
      } catch (error) {
        throw new InvalidArgumentError(`failed to parse amount: ${(error as Error).message}`);
      }
      const api = await connectToNode(globalOptions(command));
      const from = Address.fromString(options.from ?? (await api.WalletDefaultAddress()));
      const recipientActor =
        options.paramsJson === undefined || target.eth ? undefined : await actorTypeAt(api, target.to);
      const message = buildSendMessage(from, target, amount, options, recipientActor);
      process.stdout.write(
        `Sending message from: ${from}\nSending message to: ${target.to}\nUsing Method: ${message.method}\n`,
      );
      let cid: unknown;
      if (options.nonce !== undefined) {
        // A chosen nonce: estimate the gas, sign here and push (Lotus does the same).
        const estimated = await api.GasEstimateMessageGas(messageToLotusJson(message), null, null);
        cid = await api.MpoolPush(await api.WalletSignMessage(from.toString(), estimated));
      } else {
        const signed = signedMessageFromLotusJson(
          await api.MpoolPushMessage(messageToLotusJson(message), null),
          'MpoolPushMessage',
        );
        cid = signedMessageToLotusJson(signed).CID;
      }
      process.stdout.write(`${readJsonCid(cid, 'CID')}\n`);
    });
}
