/**
 * The keystore in Lotus's layout, so a Lotus keystore can be read and written unchanged: one file
 * per key in `<repo>/keystore/` (directory 0700), named by the unpadded upper-case base32 of the key
 * name (`auth-jwt-private` → `MF2XI2BNNJ3XILLQOJUXMYLUMU`), holding a JSON KeyInfo
 * `{"Type": …, "PrivateKey": base64}` with mode 0600. Like Lotus, a key file that others may read is
 * refused rather than used.
 *
 * Files are small and few, so the calls are synchronous: each operation is atomic with respect to
 * the event loop, which is the locking Lotus does with a mutex.
 */
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { base32upper } from 'multiformats/bases/base32';
import { fromBase64, toBase64 } from '../utils/bytes.js';
import { KEY_INFO_NOT_FOUND, WalletError, WalletErrorCode } from './errors.js';

/** A keystore entry: wallet keys, but also other secrets such as the API's JWT key. */
export interface StoredKey {
  readonly type: string;
  readonly privateKey: Uint8Array;
}

const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;
/** Temporary files start with a dot, which base32 never does, so listing skips them. */
const TEMP_PREFIX = '.tmp-';

function fileName(name: string): string {
  return base32upper.baseEncode(new TextEncoder().encode(name));
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

export class Keystore {
  readonly directory: string;

  /** Opens (creating if needed) the keystore directory. */
  constructor(directory: string) {
    this.directory = directory;
    mkdirSync(directory, { recursive: true, mode: DIRECTORY_MODE });
  }

  /** The names of every key, in no particular order. */
  list(): string[] {
    const names: string[] = [];
    for (const file of readdirSync(this.directory)) {
      if (file.startsWith('.')) continue;
      this.#checkMode(join(this.directory, file), file);
      try {
        names.push(new TextDecoder('utf-8', { fatal: true }).decode(base32upper.baseDecode(file)));
      } catch (error) {
        throw new WalletError(WalletErrorCode.KeystoreCorrupt, `decoding key: '${file}': not a base32 key name`, {
          cause: error,
        });
      }
    }
    return names;
  }

  has(name: string): boolean {
    return this.tryGet(name) !== undefined;
  }

  /** The key, or a WalletError with Lotus's "key info not found" when there is none. */
  get(name: string): StoredKey {
    const key = this.tryGet(name);
    if (key === undefined) {
      throw new WalletError(WalletErrorCode.KeyNotFound, `opening key '${name}': ${KEY_INFO_NOT_FOUND}`);
    }
    return key;
  }

  tryGet(name: string): StoredKey | undefined {
    const path = join(this.directory, fileName(name));
    let text: string;
    try {
      this.#checkMode(path, name);
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return parseStoredKey(text, name);
  }

  /** Stores a new key; an existing key of that name is never overwritten. */
  put(name: string, key: StoredKey): void {
    const path = join(this.directory, fileName(name));
    const temp = join(this.directory, `${TEMP_PREFIX}${process.pid}-${fileName(name)}`);
    const content = JSON.stringify({ Type: key.type, PrivateKey: toBase64(key.privateKey) });
    const fd = openSync(temp, 'w', FILE_MODE);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // A hard link appears complete or not at all, and fails if the name exists: an atomic,
    // exclusive create.
    try {
      linkSync(temp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new WalletError(WalletErrorCode.KeyExists, `checking key before put '${name}': key already exists`);
      }
      throw error;
    } finally {
      rmSync(temp, { force: true });
    }
  }

  /** Removes a key; a missing key is a KeyNotFound error, as in Lotus. */
  delete(name: string): void {
    try {
      unlinkSync(join(this.directory, fileName(name)));
    } catch (error) {
      if (isNotFound(error)) {
        throw new WalletError(
          WalletErrorCode.KeyNotFound,
          `checking key before delete '${name}': ${KEY_INFO_NOT_FOUND}`,
        );
      }
      throw error;
    }
  }

  #checkMode(path: string, name: string): void {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new WalletError(
        WalletErrorCode.KeystoreUnsafe,
        `permissions of key: '${name}' are too relaxed, required: 0600, got: 0${mode.toString(8)}`,
      );
    }
  }
}

function parseStoredKey(text: string, name: string): StoredKey {
  function corrupt(why: string): never {
    throw new WalletError(WalletErrorCode.KeystoreCorrupt, `decoding key '${name}': ${why}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    corrupt('not JSON');
  }
  const { Type: type, PrivateKey: privateKey } = (json ?? {}) as { Type?: unknown; PrivateKey?: unknown };
  if (typeof type !== 'string') corrupt('Type is not a string');
  if (typeof privateKey !== 'string') corrupt('PrivateKey is not a base64 string');
  try {
    return { type, privateKey: fromBase64(privateKey) };
  } catch {
    corrupt('PrivateKey is not a base64 string');
  }
}
