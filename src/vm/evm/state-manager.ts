/**
 * The StateManager the bridge's EVM runs over. FEVM keeps no Ethereum world state: every opcode
 * that reads or writes state outside the running frame is a host request (fevm-opcodes.ts), so
 * ethereumjs only asks for the running contract's account record when a frame starts (its balance
 * and nonce mean nothing there: SELFBALANCE asks the host). Anything else reaching this class is a
 * path the bridge failed to route, and fails loudly rather than reading an empty world.
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import type { Account, Address } from '@ethereumjs/util';

function unrouted(what: string): never {
  throw new Error(`EVM bridge: ${what} reached the StateManager; FEVM state goes through the host`);
}

export class FrameStateManager implements StateManagerInterface {
  readonly originalStorageCache = {
    get: (): Promise<Uint8Array> => unrouted('original storage'),
    clear: (): void => {},
  };

  async getAccount(_address: Address): Promise<Account | undefined> {
    return undefined;
  }
  putAccount(): Promise<void> {
    return unrouted('putAccount');
  }
  deleteAccount(): Promise<void> {
    return unrouted('deleteAccount');
  }
  modifyAccountFields(): Promise<void> {
    return unrouted('modifyAccountFields');
  }
  putCode(): Promise<void> {
    return unrouted('putCode');
  }
  getCode(): Promise<Uint8Array> {
    return unrouted('getCode');
  }
  getCodeSize(): Promise<number> {
    return unrouted('getCodeSize');
  }
  getStorage(): Promise<Uint8Array> {
    return unrouted('getStorage');
  }
  putStorage(): Promise<void> {
    return unrouted('putStorage');
  }
  clearStorage(): Promise<void> {
    return unrouted('clearStorage');
  }
  async checkpoint(): Promise<void> {}
  async commit(): Promise<void> {}
  async revert(): Promise<void> {}
  getStateRoot(): Promise<Uint8Array> {
    return unrouted('getStateRoot');
  }
  setStateRoot(): Promise<void> {
    return unrouted('setStateRoot');
  }
  hasStateRoot(): Promise<boolean> {
    return unrouted('hasStateRoot');
  }
  clearCaches(): void {}
  shallowCopy(): StateManagerInterface {
    return new FrameStateManager();
  }
}
