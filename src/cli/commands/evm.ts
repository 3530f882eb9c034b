/**
 * `ledger evm deploy|invoke|call`: contracts from the command line, shaped as Lotus's `lotus evm`
 * commands (filecoin-project/lotus `cli/evm.go`): a deployment is an EAM CreateExternal message
 * (FIP-0054) from a wallet account, an invocation is InvokeContract (3844450837) with the calldata
 * as a CBOR byte string, and a call is `eth_call` on the node's latest state (nothing is sent).
 * Both messages are pushed with MpoolPushMessage and awaited; a contract that reverts is an error
 * carrying its revert reason (an `Error(string)` as its text, see docs/ethereum.md).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CID } from 'multiformats/cid';
import type { LedgerApi } from '../../rpc/client.js';
import { JsonRpcError } from '../../rpc/errors.js';
import { revertData, revertReason } from '../../rpc/eth-revert.js';
import { ACTOR_NOT_FOUND_CODE } from '../../rpc/methods/state.js';
import { actorNameOf } from '../../state/index.js';
import {
  Address,
  AddressProtocol,
  addressFromEthAddress,
  addressFromEthAddressBytes,
  CREATE_EXTERNAL_METHOD,
  decodeChainCbor,
  EAM_ADDRESS,
  encodeCbor,
  ethAddressFromAddress,
  INVOKE_CONTRACT_METHOD,
  jsonField,
  type Message,
  messageToLotusJson,
  parseFil,
  readBytes,
  readJsonCid,
  readJsonObject,
  signedMessageFromLotusJson,
  signedMessageToLotusJson,
} from '../../types/index.js';
import { fromBase64, fromHex, toHex } from '../../utils/bytes.js';
import { InvalidArgumentError, LedgerError } from '../../utils/errors.js';
import { eamReturn } from '../../vm/index.js';
import { connectToNode, type GlobalOptions, globalOptions } from '../node-connection.js';
import { waitForMessage } from './state.js';

/** builtin-actors' EVM `EVM_CONTRACT_REVERTED`: the contract ran REVERT. */
const EVM_CONTRACT_REVERTED = 33n;

/** Bytes from hex text (`0x` optional, surrounding whitespace ignored, as Lotus's `DecodeHexStringTrimSpace`). */
function parseHexArgument(text: string, what: string): Uint8Array {
  const hex = text.trim().replace(/^0x/i, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) {
    throw new InvalidArgumentError(`${what} is not hex (an even number of 0-9a-f digits): ${JSON.stringify(text)}`);
  }
  return fromHex(hex);
}

/** A contract's address: `0x…`, or a Filecoin address (f410f…, or f0… of the actor). */
function parseContractAddress(text: string): Address {
  try {
    return /^0x/i.test(text) ? addressFromEthAddress(text) : Address.fromString(text);
  } catch (error) {
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not a contract address: ${(error as Error).message}`);
  }
}

/**
 * The 0x form of a caller given as `0x…` or `f410f…`: eth_call runs as an Ethereum account (Lotus
 * `EthCall.ToFilecoinMessage` refuses other senders, filecoin-project/lotus `chain/types/ethtypes/eth_types.go`).
 */
function callerEthAddress(text: string): string {
  let address: Address;
  try {
    address = /^0x/i.test(text) ? addressFromEthAddress(text) : Address.fromString(text);
  } catch (error) {
    throw new InvalidArgumentError(`--from ${JSON.stringify(text)} is not an address: ${(error as Error).message}`);
  }
  if (!/^0x/i.test(text) && address.protocol !== AddressProtocol.Delegated) {
    throw new InvalidArgumentError(
      `--from ${JSON.stringify(text)} is no Ethereum account: give its 0x or f410f address`,
    );
  }
  return ethAddressFromAddress(address);
}

/** The contract's initcode from the file: its bytes, or hex text with `--hex` (solc's `.bin` output). */
function readInitcode(path: string, hex: boolean): Uint8Array {
  let contents: Buffer;
  try {
    contents = readFileSync(path);
  } catch (error) {
    throw new InvalidArgumentError(`failed to read contract: ${(error as Error).message}`);
  }
  const initcode = hex ? parseHexArgument(contents.toString('utf8'), `contract file ${path}`) : contents;
  if (initcode.length === 0) throw new InvalidArgumentError(`contract file ${path} is empty`);
  return new Uint8Array(initcode);
}

/** Refuses an address without an EVM actor, so nothing is spent on a message that cannot reach a contract. */
async function requireContract(api: LedgerApi, address: Address): Promise<void> {
  let code: CID;
  try {
    code = readJsonCid((await api.StateGetActor(address.toString(), null)).Code, 'StateGetActor.Code');
  } catch (error) {
    if (error instanceof JsonRpcError && error.rpcCode === ACTOR_NOT_FOUND_CODE) {
      throw new LedgerError('ERR_NO_CONTRACT', `no contract at ${address}: no actor has this address`);
    }
    throw error;
  }
  const name = actorNameOf(code);
  if (name !== 'evm') {
    throw new LedgerError('ERR_NO_CONTRACT', `no contract at ${address}: its actor is ${name ?? 'of an unknown type'}`);
  }
}

/** The error of a failed receipt: a revert with its decoded reason, else the exit code. */
function executionFailure(exitCode: bigint, returned: Uint8Array): LedgerError {
  if (exitCode === EVM_CONTRACT_REVERTED) {
    const data = revertData(returned);
    const reason = data === undefined || data.length === 0 ? '' : `: ${revertReason(data)}`;
    return new LedgerError('ERR_REVERTED', `contract reverted (exit code 33)${reason}`);
  }
  return new LedgerError('ERR_EXECUTION_FAILED', `actor execution failed: exit code ${exitCode}`);
}

interface Executed {
  readonly exitCode: bigint;
  readonly gasUsed: bigint;
  readonly returned: Uint8Array;
}

/** A receipt's return bytes from Lotus JSON (base64; null when empty). */
function returnOf(receipt: Record<string, unknown>): Uint8Array {
  const returned = jsonField(receipt, 'Return');
  return typeof returned === 'string' ? fromBase64(returned) : new Uint8Array(0);
}

/**
 * Runs `message` on the head state first (StateCall) so that a contract that would revert is
 * reported with its reason, before the node's gas estimation refuses it with the exit code only.
 */
async function refuseFailingCall(api: LedgerApi, message: Message): Promise<void> {
  const result = readJsonObject(await api.StateCall(messageToLotusJson(message), null), 'InvocResult');
  const receipt = readJsonObject(jsonField(result, 'MsgRct'), 'InvocResult.MsgRct');
  const exitCode = BigInt(jsonField(receipt, 'ExitCode') as number);
  if (exitCode !== 0n) throw executionFailure(exitCode, returnOf(receipt));
}

/** Pushes `message` (the node fills nonce and gas and signs), prints its CID and waits for its receipt. */
async function pushAndWait(
  api: LedgerApi,
  options: GlobalOptions,
  message: Message,
  out: (line: string) => void,
): Promise<Executed> {
  await refuseFailingCall(api, message);
  out('sending message...');
  const signed = signedMessageFromLotusJson(
    await api.MpoolPushMessage(messageToLotusJson(message), null),
    'MpoolPushMessage',
  );
  const cid = readJsonCid(signedMessageToLotusJson(signed).CID, 'CID');
  out(`Message CID: ${cid}`);
  out('waiting for message to execute...');
  const lookup = readJsonObject(await waitForMessage(options, cid, Number.POSITIVE_INFINITY), 'MsgLookup');
  const receipt = readJsonObject(jsonField(lookup, 'Receipt'), 'MsgLookup.Receipt');
  return {
    exitCode: BigInt(jsonField(receipt, 'ExitCode') as number),
    gasUsed: BigInt(jsonField(receipt, 'GasUsed') as number),
    returned: returnOf(receipt),
  };
}

function writer(): (line: string) => void {
  return (line) => process.stdout.write(`${line}\n`);
}

async function sender(api: LedgerApi, from: string | undefined): Promise<Address> {
  try {
    return Address.fromString(from ?? (await api.WalletDefaultAddress()));
  } catch (error) {
    throw new InvalidArgumentError(`--from: ${(error as Error).message}`);
  }
}

interface DeployOptions {
  readonly from?: string;
  readonly hex?: boolean;
}

interface InvokeOptions {
  readonly from?: string;
  readonly value?: string;
}

function deployCommand(): Command {
  return new Command('deploy')
    .description('Deploy an EVM smart contract and return its address')
    .argument('<contract>', 'file holding the initcode (bytes; hex text with --hex)')
    .option('--from <address>', 'optionally specify the account to use for sending the creation message')
    .option('--hex', 'use when input contract is in hex', false)
    .action(async (path: string, options: DeployOptions, command: Command) => {
      const initcode = readInitcode(path, options.hex === true);
      const global = globalOptions(command);
      const api = await connectToNode(global);
      const from = await sender(api, options.from);
      const out = writer();
      const executed = await pushAndWait(
        api,
        global,
        {
          to: EAM_ADDRESS,
          from,
          nonce: 0n,
          value: 0n,
          gasLimit: 0n,
          gasFeeCap: 0n,
          gasPremium: 0n,
          method: CREATE_EXTERNAL_METHOD,
          params: encodeCbor(initcode),
        },
        out,
      );
      out(`Exit Code: ${executed.exitCode}`);
      out(`Gas Used: ${executed.gasUsed}`);
      if (executed.exitCode !== 0n) throw executionFailure(executed.exitCode, executed.returned);
      const created = eamReturn.decode(executed.returned);
      out(`Actor ID: ${created.actorId}`);
      out(`ID Address: ${Address.newId(created.actorId)}`);
      out(`Robust Address: ${created.robustAddress ?? '<empty>'}`);
      out(`Eth Address: 0x${toHex(created.ethAddress)}`);
      out(`f4 Address: ${addressFromEthAddressBytes(created.ethAddress)}`);
    });
}

function invokeCommand(): Command {
  return new Command('invoke')
    .description('Invoke an EVM smart contract using the specified CALLDATA')
    .argument('<address>', 'the contract: 0x…, f410f… or its f0 ID address')
    .argument('<calldata>', 'the calldata, hex')
    .option('--from <address>', 'optionally specify the account to use for sending the exec message')
    .option('--value <FIL>', 'optionally specify the value to be sent with the invocation message', '0')
    .action(async (addressText: string, calldataText: string, options: InvokeOptions, command: Command) => {
      const contract = parseContractAddress(addressText);
      const calldata = parseHexArgument(calldataText, 'calldata');
      let value: bigint;
      try {
        value = parseFil(options.value ?? '0');
      } catch (error) {
        throw new InvalidArgumentError(`--value: ${(error as Error).message}`);
      }
      const global = globalOptions(command);
      const api = await connectToNode(global);
      const from = await sender(api, options.from);
      await requireContract(api, contract);
      const out = writer();
      const executed = await pushAndWait(
        api,
        global,
        {
          to: contract,
          from,
          nonce: 0n,
          value,
          gasLimit: 0n,
          gasFeeCap: 0n,
          gasPremium: 0n,
          method: INVOKE_CONTRACT_METHOD,
          params: calldata.length === 0 ? new Uint8Array(0) : encodeCbor(calldata),
        },
        out,
      );
      if (executed.exitCode !== 0n) throw executionFailure(executed.exitCode, executed.returned);
      out(`Gas used: ${executed.gasUsed}`);
      const result =
        executed.returned.length === 0
          ? executed.returned
          : readBytes(decodeChainCbor(executed.returned, 'return'), 'return');
      out(result.length === 0 ? 'OK' : toHex(result));
    });
}

function callCommand(): Command {
  return new Command('call')
    .description('Simulate an eth contract call (eth_call on the latest state; nothing is sent)')
    .argument('<address>', 'the contract: 0x…, f410f… or its f0 ID address')
    .argument('<calldata>', 'the calldata, hex')
    .option('--from <address>', 'the caller (0x… or a Filecoin address); none by default')
    .action(async (addressText: string, calldataText: string, options: { from?: string }, command: Command) => {
      const contract = parseContractAddress(addressText);
      const calldata = parseHexArgument(calldataText, 'calldata');
      const from = options.from === undefined ? undefined : callerEthAddress(options.from);
      const api = await connectToNode(globalOptions(command));
      await requireContract(api, contract);
      const request = {
        ...(from === undefined ? {} : { from }),
        to: ethAddressFromAddress(contract),
        data: `0x${toHex(calldata)}`,
      };
      // EthCall's declaration types each eth parameter's JSON as a string (eth-codecs `ethParam`); this one is an object.
      const result = await api.EthCall(request as unknown as string, 'latest');
      process.stdout.write(`Result: ${result}\n`);
    });
}

export function evmCommand(): Command {
  return new Command('evm')
    .description('Commands related to the Filecoin EVM runtime')
    .addCommand(deployCommand())
    .addCommand(invokeCommand())
    .addCommand(callCommand());
}
