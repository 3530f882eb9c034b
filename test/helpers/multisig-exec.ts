/**
 * Creating a multisig without vesting through Init.Exec (filecoin-project/builtin-actors
 * `actors/init` ExecParams): the CBOR parameters and the message for the state machine tests,
 * and the Lotus JSON that `ledger send --params-json` takes.
 */
import { ACTOR_CODES } from '../../src/state/index.js';
import { Address, encodeCbor, type Message } from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import { encodeMultisigConstructorParams, InitMethod } from '../../src/vm/index.js';
import { message } from './messages.js';

export function multisigConstructorParams(signers: readonly Address[], threshold: bigint): Uint8Array {
  return encodeMultisigConstructorParams({
    signers: [...signers],
    numApprovalsThreshold: threshold,
    unlockDuration: 0n,
    startEpoch: 0n,
  });
}

/** A message from `from` to the init actor creating the multisig with `value`, with gas enough for it. */
export function createMultisigMessage(
  from: Address,
  signers: readonly Address[],
  threshold: bigint,
  value = 0n,
): Message {
  return message({
    from,
    to: Address.newId(1n),
    method: InitMethod.Exec,
    params: encodeCbor([ACTOR_CODES.multisig, multisigConstructorParams(signers, threshold)]),
    value,
    gasLimit: 100_000_000n,
  });
}

/** Init.Exec parameters in Lotus JSON for a 1-of-1 multisig of `signer`, and the constructor parameters inside. */
export function multisigExecJson(signer: Address): { exec: string; constructorParams: Uint8Array } {
  const constructorParams = multisigConstructorParams([signer], 1n);
  const exec = JSON.stringify({
    CodeCID: { '/': ACTOR_CODES.multisig.toString() },
    ConstructorParams: toBase64(constructorParams),
  });
  return { exec, constructorParams };
}
