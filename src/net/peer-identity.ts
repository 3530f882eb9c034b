/**
 * The node's libp2p identity: an Ed25519 key kept in the repo (`libp2p.key`, mode 0600, libp2p's
 * protobuf key encoding) so the peer id survives restarts, as Lotus keeps its `libp2p-host` key.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { NetError, NetErrorCode } from './errors.js';

export const PEER_KEY_FILE = 'libp2p.key';

/** Loads the repo's peer key, creating it on first use. A key file others can read is refused. */
export async function loadOrCreatePeerKey(repoPath: string): Promise<PrivateKey> {
  const file = join(repoPath, PEER_KEY_FILE);
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new NetError(
        NetErrorCode.BadIdentity,
        `peer key ${file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`,
      );
    }
    try {
      return privateKeyFromProtobuf(readFileSync(file));
    } catch (error) {
      throw new NetError(NetErrorCode.BadIdentity, `peer key ${file} is not a libp2p private key`, { cause: error });
    }
  }
  const key = await generateKeyPair('Ed25519');
  writeFileSync(file, privateKeyToProtobuf(key), { mode: 0o600, flag: 'wx' });
  return key;
}
