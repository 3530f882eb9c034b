/**
 * Who may send a top-level message (Lotus `IsValidForSending`, filecoin-project/lotus
 * `chain/consensus/common.go`): an account, an EthAccount, or a placeholder that has sent nothing
 * yet at an f410 (Ethereum, EAM namespace) address — its first message makes it an EthAccount. The
 * message pool and block validation both ask this.
 */
import { actorNameOf } from '../state/index.js';
import { type Actor, AddressProtocol, ETHEREUM_ADDRESS_MANAGER_ACTOR_ID } from '../types/index.js';

export function isValidForSending(actor: Actor): boolean {
  const name = actorNameOf(actor.code);
  if (name === 'account' || name === 'ethaccount') return true;
  const delegated = actor.delegatedAddress;
  return (
    name === 'placeholder' &&
    actor.nonce === 0n &&
    delegated !== null &&
    delegated.protocol === AddressProtocol.Delegated &&
    delegated.delegated().namespace === ETHEREUM_ADDRESS_MANAGER_ACTOR_ID
  );
}
