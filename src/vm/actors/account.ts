/**
 * Account actor: the actor of an f1 (secp256k1) or f3 (BLS) key; its state is that key address
 * (builtin-actors `actors/account`). It accepts every exported method (≥ 2^24) as a plain transfer.
 */
import { SYSTEM_ACTOR_ID } from '../../state/index.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { type Address, AddressProtocol, encodeCbor, SignatureType } from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { AccountMethod, METHOD_CONSTRUCTOR } from '../methods.js';
import type { StateCodec } from '../runtime.js';
import {
  type ActorImplementation,
  acceptExportedMethods,
  decodeParams,
  encodeReturn,
  type MethodHandler,
} from './actor.js';
import { readAddress, readBytes, readTuple } from './cbor.js';

export interface AccountState {
  readonly address: Address;
}

export const accountStateCodec: StateCodec<AccountState> = {
  decode(bytes) {
    const [address] = readTuple(decodeChainCbor(bytes, 'AccountState'), 'AccountState', 1);
    return { address: readAddress(address, 'AccountState.Address') };
  },
  encode: (state) => encodeCbor([state.address.bytes]),
};

export const accountActor: ActorImplementation = {
  type: 'account',
  methods: new Map<bigint, MethodHandler>([
    [
      METHOD_CONSTRUCTOR,
      (rt, params) => {
        const address = decodeParams(params, 'AccountConstructorParams', readAddress);
        rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
        if (address.protocol !== AddressProtocol.Secp256k1 && address.protocol !== AddressProtocol.BLS) {
          rt.abort(ExitCode.UsrIllegalArgument, `address must use BLS or SECP protocol, got ${address.protocol}`);
        }
        rt.createState(accountStateCodec, { address });
        return null;
      },
    ],
    [
      AccountMethod.PubkeyAddress,
      (rt) => {
        rt.validateImmediateCallerAcceptAny();
        return encodeReturn(rt.state(accountStateCodec).address.bytes);
      },
    ],
    [
      AccountMethod.AuthenticateMessage,
      (rt, params) => {
        const { signature, message } = decodeParams(params, 'AuthenticateMessageParams', (node, path) => {
          const [signature, message] = readTuple(node, path, 2);
          return {
            signature: readBytes(signature, `${path}.Signature`),
            message: readBytes(message, `${path}.Message`),
          };
        });
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
    ],
  ]),
  fallback: acceptExportedMethods,
};
