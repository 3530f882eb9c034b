/**
 * The message checks of block validation (Lotus `checkBlockMessages`, filecoin-project/lotus
 * `chain/consensus/common.go`), against the state after executing the parent tipset:
 *
 * - the BLS aggregate verifies over the BLS messages' CIDs and their senders' keys;
 * - each message (BLS first, then secp) is valid for block inclusion: sane amounts, a gas limit
 *   between the on-chain minimum and the block gas limit, and the block's total within the limit;
 * - each sender may send (an account, an EthAccount, or a fresh f410 placeholder) and its nonces
 *   follow the state nonce exactly;
 * - the secp list holds secp256k1 and delegated (Ethereum, type 3) messages: secp signatures verify
 *   against the sender's key address, delegated ones are the EIP-1559 or legacy transaction their
 *   f410 sender signed for the network's chain id (Lotus `AuthenticateMessage`);
 * - the TxMeta rebuilt from the CIDs is the header's `Messages`.
 *
 * Like Lotus, there is no balance check and no fee cap check: execution charges what it can.
 */
import { txMetaCidOf } from '../chain/index.js';
import { bls, secp256k1 } from '../crypto/index.js';
import type { NetworkParams } from '../params/index.js';
import { actorNameOf, type StateTree } from '../state/index.js';
import {
  type Address,
  AddressProtocol,
  delegatedAddressFromPublicKey,
  delegatedRecoveryInput,
  type FullBlock,
  type Message,
  messageCid,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  validateMessageFields,
} from '../types/index.js';
import {
  blsChainMessage,
  keyAddressOf,
  onChainMessage,
  signedChainMessage,
  verifySecpMessageSignatures,
} from '../vm/index.js';
import { BlockCheckError, BlockErrorCode } from './errors.js';
import { isValidForSending } from './senders.js';

/** Network version 18 (Hygge) brought delegated signatures (Lotus `IsValidSecpkSigType`). */
const DELEGATED_SIGNATURES_FROM_VERSION = 18;

function bad(reason: string): never {
  throw new BlockCheckError(BlockErrorCode.BadMessages, reason);
}

function senderKey(tree: StateTree, from: Address, what: string): Address {
  try {
    return keyAddressOf(tree, from);
  } catch (error) {
    return bad(`${what}: cannot resolve the key of sender ${from}: ${(error as Error).message}`);
  }
}

/** Throws `ERR_BAD_BLS_AGGREGATE` unless the header's aggregate signs the block's BLS messages. */
export async function checkBlsAggregate(tree: StateTree, block: FullBlock): Promise<void> {
  const aggregate = block.header.blsAggregate;
  if (block.blsMessages.length === 0) return;
  const fail = (reason: string): never => {
    throw new BlockCheckError(BlockErrorCode.BadBlsAggregate, reason);
  };
  if (aggregate === null || aggregate.type !== SignatureType.BLS)
    return fail('the BLS aggregate is missing or not a BLS signature');
  const items = block.blsMessages.map((message, i) => {
    const key = senderKey(tree, message.from, `BLS message ${i}`);
    if (key.protocol !== AddressProtocol.BLS)
      fail(`BLS message ${i} is from ${message.from}, whose key ${key} is not BLS`);
    return { publicKey: key.payload, message: messageCid(message).bytes };
  });
  if (!(await bls.aggregateVerifyAsync(items, aggregate.data))) {
    fail(`the BLS aggregate does not verify over the block's ${items.length} BLS messages`);
  }
}

/** Throws `ERR_BAD_BLOCK_MESSAGES` naming the first message that may not be in this block. */
export async function checkBlockMessages(tree: StateTree, block: FullBlock, params: NetworkParams): Promise<void> {
  const count = block.blsMessages.length + block.secpkMessages.length;
  if (count > params.blockMessageLimit)
    bad(`block has ${count} messages, above the limit of ${params.blockMessageLimit}`);
  const nextNonce = new Map<bigint, bigint>();
  let gasTotal = 0n;
  const check = (message: Message, chainLength: number, what: string) => {
    try {
      validateMessageFields(message);
    } catch (error) {
      bad(`${what}: ${(error as Error).message}`);
    }
    const minGas = onChainMessage(chainLength);
    const minGasUnits = BigInt(Math.ceil((minGas.compute + minGas.storage) / 1000));
    if (message.gasLimit < minGasUnits)
      bad(`${what}: gas limit ${message.gasLimit} is below the minimum ${minGasUnits}`);
    if (message.gasLimit > params.blockGasLimit) {
      bad(`${what}: gas limit ${message.gasLimit} is above the block gas limit ${params.blockGasLimit}`);
    }
    gasTotal += message.gasLimit;
    if (gasTotal > params.blockGasLimit)
      bad(`${what}: the block's messages exceed the block gas limit ${params.blockGasLimit}`);
    const id = tree.lookupId(message.from);
    const actor = id === undefined ? undefined : tree.getActor(id);
    if (id === undefined || actor === undefined) return bad(`${what}: sender ${message.from} does not exist`);
    if (!isValidForSending(actor)) {
      const type = actorNameOf(actor.code) ?? 'unknown';
      bad(`${what}: sender ${message.from} is a ${type} actor that may not send (nonce ${actor.nonce})`);
    }
    const expected = nextNonce.get(id) ?? actor.nonce;
    if (message.nonce !== expected)
      bad(`${what}: wrong nonce ${message.nonce} from ${message.from} (expected ${expected})`);
    nextNonce.set(id, expected + 1n);
  };
  for (const [i, message] of block.blsMessages.entries()) {
    check(message, blsChainMessage(message).chainLength, `BLS message ${i} (${messageCid(message)})`);
  }
  const secp: SignedMessage[] = [];
  const delegated: Array<{ signed: SignedMessage; what: string }> = [];
  const allowsDelegated = params.networkVersion >= DELEGATED_SIGNATURES_FROM_VERSION;
  for (const [i, signed] of block.secpkMessages.entries()) {
    const what = `secp message ${i} (${signedMessageCid(signed)})`;
    const type = signed.signature.type;
    if (type === SignatureType.Secp256k1) secp.push(signed);
    else if (type === SignatureType.Delegated && allowsDelegated) delegated.push({ signed, what });
    else bad(`${what}: signature type ${type} is not allowed in a secp message list`);
    check(signed.message, signedChainMessage(signed).chainLength, what);
  }
  try {
    await verifySecpMessageSignatures(secp, (from) => senderKey(tree, from, 'secp message'));
  } catch (error) {
    if (error instanceof BlockCheckError) throw error;
    bad((error as Error).message);
  }
  await verifyDelegatedSignatures(tree, delegated, params.eip155ChainId);
  const meta = txMetaCidOf(block.blsMessages.map(messageCid), block.secpkMessages.map(signedMessageCid));
  if (!meta.equals(block.header.messages)) {
    bad(`the header's Messages ${block.header.messages} is not the TxMeta ${meta} of the block's messages`);
  }
}

/**
 * Lotus `AuthenticateMessage` for each delegated message: its transaction rebuilt and its signer
 * recovered (in one native batch off the main thread) must be the sender's key address.
 */
async function verifyDelegatedSignatures(
  tree: StateTree,
  messages: ReadonlyArray<{ signed: SignedMessage; what: string }>,
  chainId: number,
): Promise<void> {
  if (messages.length === 0) return;
  const invalid = (what: string, reason: string): never => bad(`${what}: invalid delegated signature: ${reason}`);
  const inputs = messages.map(({ signed, what }) => {
    try {
      return delegatedRecoveryInput(signed, chainId);
    } catch (error) {
      return invalid(what, (error as Error).message);
    }
  });
  let keys: Array<Uint8Array | null>;
  try {
    keys = await secp256k1.recoverDigestBatch(inputs);
  } catch (error) {
    return bad(`recovering the delegated signers: ${(error as Error).message}`);
  }
  for (const [i, { signed, what }] of messages.entries()) {
    const key = keys[i] ?? invalid(what, 'no public key recovers from the signature');
    const signer = delegatedAddressFromPublicKey(key);
    const sender = senderKey(tree, signed.message.from, what);
    if (!signer.equals(sender)) invalid(what, `signed by ${signer}, not by the sender's key ${sender}`);
  }
}
