/**
 * A failed eth_call / eth_estimateGas as Ethereum clients decode it: JSON-RPC code 3 with the
 * revert data as `data` hex (filecoin-project/lotus `api/api_errors.go` `ErrExecutionReverted`,
 * code 3 since lotus#13467). ethers v6 reads a revert from an error whose message mentions
 * "revert" and whose `data` is hex (ethers-io/ethers.js `src.ts/providers/provider-jsonrpc.ts`
 * `spelunkData`), viem from code 3 with `data` (wevm/viem `src/utils/errors/getContractError.ts`).
 * An EVM revert (exit 33) is worded as geth words it, `execution reverted: <reason>`; any other
 * failure as Lotus does, `message execution failed (exit=[E], revert reason=[R], vm error=[V])`.
 * The reason is Lotus's `ParseEthRevert` reading (chain/types/ethtypes/eth_types.go), except that
 * an `Error(string)` reason is the string itself, as geth gives it.
 */
import { decodeChainCbor, readBytes } from '../types/index.js';
import type { InvocResult } from '../vm/index.js';
import { JsonRpcError } from './errors.js';
import { hexData } from './eth-codecs.js';

/** JSON-RPC code of a reverted execution (geth's, Lotus's `EExecutionReverted`). */
export const EXECUTION_REVERTED_CODE = 3;
/** builtin-actors' EVM `EVM_CONTRACT_REVERTED`: the contract ran REVERT. */
const EVM_CONTRACT_REVERTED = 33;

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

/** Solidity's panic codes (docs.soliditylang.org, "Panic via assert and Error via require"), as Lotus names them. */
const PANIC_NAMES: Readonly<Record<number, string>> = {
  0: 'Panic()',
  1: 'Assert()',
  17: 'ArithmeticOverflow()',
  18: 'DivideByZero()',
  33: 'InvalidEnumVariant()',
  34: 'InvalidStorageArray()',
  49: 'PopEmptyArray()',
  50: 'ArrayIndexOutOfBounds()',
  65: 'OutOfMemory()',
  81: 'CalledUninitializedFunction()',
};

function word(data: Uint8Array, offset: number): bigint | undefined {
  if (offset + 32 > data.length) return undefined;
  return BigInt(hexData(data.subarray(offset, offset + 32)));
}

/** The reason in revert data: an Error(string)'s text, a panic's name, else the data as hex. */
export function revertReason(data: Uint8Array): string {
  const raw = hexData(data);
  if (data.length < 4 + 32) return raw;
  const selector = raw.slice(2, 10);
  const body = data.subarray(4);
  if (selector === PANIC_SELECTOR) {
    const code = word(body, 0)!;
    return PANIC_NAMES[Number(code)] ?? (code < 2n ** 64n ? `Panic(0x${code.toString(16)})` : `Panic(${code})`);
  }
  if (selector === ERROR_SELECTOR) {
    const offset = word(body, 0)!;
    const length = offset <= BigInt(body.length) ? word(body, Number(offset)) : undefined;
    const start = Number(offset) + 32;
    if (length !== undefined && BigInt(start) + length <= BigInt(body.length)) {
      return new TextDecoder().decode(body.subarray(start, start + Number(length)));
    }
  }
  return raw;
}

/** The revert bytes a failed EVM call returns (a CBOR byte string), or undefined when the return is no such string. */
export function revertData(returned: Uint8Array): Uint8Array | undefined {
  if (returned.length === 0) return undefined;
  try {
    return readBytes(decodeChainCbor(returned, 'return'), 'return');
  } catch {
    // A native actor's failure: no Ethereum revert data.
    return undefined;
  }
}

/** The error a failed call answers with (`result`'s receipt has a non-zero exit code). */
export function executionReverted(result: InvocResult): JsonRpcError {
  const exitCode = Number(result.msgRct.exitCode);
  const data = revertData(result.msgRct.return);
  const bytes = data ?? new Uint8Array(0);
  let message: string;
  if (exitCode === EVM_CONTRACT_REVERTED) {
    message = bytes.length === 0 ? 'execution reverted' : `execution reverted: ${revertReason(bytes)}`;
  } else {
    const reason = data === undefined ? '' : `, revert reason=[${bytes.length === 0 ? 'none' : revertReason(bytes)}]`;
    message = `message execution failed (exit=[${exitCode}]${reason}, vm error=[${result.error || 'none'}])`;
  }
  return new JsonRpcError(EXECUTION_REVERTED_CODE, message, { data: hexData(bytes) });
}
