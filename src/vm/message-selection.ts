/**
 * Which of a tipset's messages are executed, and in what order (Lotus `BlockMsgsForTipset` and
 * `ApplyBlocks`; filecoin-project/lotus `chain/store/messages.go`,
 * `chain/consensus/compute_state.go`): blocks in ticket order, each block's BLS messages then its
 * secp messages; a message runs only if its nonce is the next one expected for its sender — the
 * first message seen from a sender sets that expectation — and never twice. Once any message names
 * its sender by ID address, senders are compared by resolved ID.
 */
import { byteKey, type StateTree } from '../state/index.js';
import { type Address, AddressProtocol, type Message, type SignedMessage } from '../types/index.js';
import { blsChainMessage, type ChainMessage, signedChainMessage } from './chain-message.js';

export interface TipsetBlockMessages {
  readonly blsMessages: readonly Message[];
  readonly secpMessages: readonly SignedMessage[];
}

/** Each block's messages (BLS, then secp) that pass the nonce rule, as chain messages. */
export function selectTipsetMessages(tree: StateTree, blocks: readonly TipsetBlockMessages[]): ChainMessage[][] {
  const expected = new Map<string, { sender: Address; nonce: bigint }>();
  let byId = false;
  // Lotus fails the tipset when a sender cannot be resolved; such a block is invalid anyway, so
  // here the sender keeps its own address and the message fails pre-validation when applied.
  const resolvedKey = (address: Address): string => {
    const id = tree.lookupId(address);
    return id === undefined ? byteKey(address.bytes) : `f0${id}`;
  };
  const senderKey = (from: Address): string => {
    if (!byId && from.protocol === AddressProtocol.ID) {
      byId = true;
      for (const [key, entry] of [...expected]) {
        expected.delete(key);
        expected.set(resolvedKey(entry.sender), entry);
      }
    }
    return byId ? resolvedKey(from) : byteKey(from.bytes);
  };
  const select = (message: Message): boolean => {
    const key = senderKey(message.from);
    const nonce = expected.get(key)?.nonce ?? message.nonce;
    if (message.nonce !== nonce) return false;
    expected.set(key, { sender: message.from, nonce: nonce + 1n });
    return true;
  };
  return blocks.map((block) => [
    ...block.blsMessages.filter(select).map(blsChainMessage),
    ...block.secpMessages.filter((signed) => select(signed.message)).map(signedChainMessage),
  ]);
}
