/**
 * Account actor: the actor of an f1 (secp256k1) or f3 (BLS) key; its state is that key address
 * (builtin-actors `actors/account`). It accepts every exported method (≥ 2^24) as a plain transfer.
 */
import { SYSTEM_ACTOR_ID } from '../../state/index.js';
import {
  AddressProtocol,
  addressKind,
  declareStruct,
  kinds,
  SignatureType,
  type StructValue,
} from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { AccountMethod } from '../methods.js';
import type { StateCodec } from '../runtime.js';
import { acceptExportedMethods, decodeParams, defineActor, encodeReturn } from './actor.js';
import { readAddress } from './cbor.js';

/** builtin-actors `actors/account/src/state.rs` `State`: the key address. */
export const accountStateStruct = declareStruct('AccountState', [
  { key: 'address', json: 'Address', kind: addressKind },
]);
export type AccountState = StructValue<typeof accountStateStruct>;

export const accountStateCodec: StateCodec<AccountState> = accountStateStruct;

/** builtin-actors `AuthenticateMessageParams`. */
export const authenticateMessageParams = declareStruct('AuthenticateMessageParams', [
  { key: 'signature', json: 'Signature', kind: kinds.bytes },
  { key: 'message', json: 'Message', kind: kinds.bytes },
]);

export const accountActor = defineActor(
  'account',
  AccountMethod,
  {
    Constructor: (rt, params) => {
      const address = decodeParams(params, 'AccountConstructorParams', readAddress);
      rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
      if (address.protocol !== AddressProtocol.Secp256k1 && address.protocol !== AddressProtocol.BLS) {
        rt.abort(ExitCode.UsrIllegalArgument, `address must use BLS or SECP protocol, got ${address.protocol}`);
      }
      rt.createState(accountStateCodec, { address });
      return null;
    },
    PubkeyAddress: (rt) => {
      rt.validateImmediateCallerAcceptAny();
      return encodeReturn(rt.state(accountStateCodec).address.bytes);
    },
    AuthenticateMessage: (rt, params) => {
      const { signature, message } = decodeParams(params, authenticateMessageParams);
      rt.validateImmediateCallerAcceptAny();
      const { address } = rt.state(accountStateCodec);
      const type =
        address.protocol === AddressProtocol.Secp256k1
          ? SignatureType.Secp256k1
          : address.protocol === AddressProtocol.BLS
            ? SignatureType.BLS
            : rt.abort(
                ExitCode.UsrIllegalState,
                `account address must use BLS or SECP protocol, got ${address.protocol}`,
              );
      if (!rt.verifySignature({ type, data: signature }, address, message)) {
        rt.abort(ExitCode.UsrIllegalArgument, 'failed to authenticate message, signature invalid');
      }
      return encodeReturn(true);
    },
  },
  acceptExportedMethods,
);
