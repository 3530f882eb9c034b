/**
 * Lotus `Message.ValidForBlockInclusion` (chain/types/message.go): the syntactic rules every
 * message in a block obeys, plus the minimum gas its inclusion costs.
 */
import type { NetworkParams } from '../params/index.js';
import { Address, InvalidMessageError, type Message, validateMessageFields } from '../types/index.js';

/** f3yaaa…by2smx7a, the BLS address with an all-zero key: never a valid recipient (network version 7 on). */
const ZERO_ADDRESS = Address.newBls(new Uint8Array(48));

/** Why `message` cannot go in a block, or undefined when it can. */
export function blockInclusionProblem(message: Message, minGas: bigint, params: NetworkParams): string | undefined {
  if (message.to.equals(ZERO_ADDRESS)) return "invalid 'To' address";
  try {
    validateMessageFields(message);
  } catch (error) {
    if (error instanceof InvalidMessageError) return error.message;
    throw error;
  }
  if (message.gasLimit > params.blockGasLimit) {
    return `'GasLimit' field cannot be greater than a block's gas limit (${message.gasLimit} > ${params.blockGasLimit})`;
  }
  if (message.gasLimit < minGas) {
    return `'GasLimit' field cannot be less than the cost of storing a message on chain ${message.gasLimit} < ${minGas}`;
  }
  return undefined;
}
