/** Peer ids as users type them (`12D3KooW…`, `Qm…`), parsed with an error that names the bad one. */
import { peerIdFromString } from '@libp2p/peer-id';
import { NetError, NetErrorCode } from './errors.js';

export function parsePeerId(peer: string): ReturnType<typeof peerIdFromString> {
  try {
    return peerIdFromString(peer);
  } catch (error) {
    throw new NetError(NetErrorCode.BadAddress, `invalid peer id ${JSON.stringify(peer)}: ${(error as Error).message}`);
  }
}
