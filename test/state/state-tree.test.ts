import { gunzipSync } from 'node:zlib';
import { Hamt, importCar, MemoryBlockstore, putCbor } from '../../src/ipld/index.js';
import {
  ACTOR_CODES,
  encodeInitState,
  INIT_ACTOR_ID,
  putCborBytes,
  StateError,
  StateErrorCode,
  StateTree,
} from '../../src/state/index.js';
import { type Actor, Address, type CID, parseCid } from '../../src/types/index.js';
import { fromBase64 } from '../../src/utils/bytes.js';
import { readVectorJson } from '../vectors/vectors-dir.js';

function actor(balance: bigint, extra: Partial<Actor> = {}): Actor {
  return { code: ACTOR_CODES.account, head: ACTOR_CODES.system, nonce: 0n, balance, delegatedAddress: null, ...extra };
}

/** A v5 tree with an Init actor whose next ID is 100. */
function treeWithInit(store = new MemoryBlockstore()): StateTree {
  const tree = StateTree.create(store);
  const addressMap = Hamt.create(store).flush();
  const head = putCborBytes(store, encodeInitState({ addressMap, nextId: 100n, networkName: 'test' }));
  tree.setActor(INIT_ACTOR_ID, actor(0n, { code: ACTOR_CODES.init, head }));
  return tree;
}

describe('StateTree', () => {
  test('flush writes a version 5 StateRoot; loading it gives the same actors and root', () => {
    const store = new MemoryBlockstore();
    const tree = StateTree.create(store);
    tree.setActor(100n, actor(5n));
    tree.setActor(101n, actor(7n, { delegatedAddress: Address.newDelegated(10n, new Uint8Array(20).fill(3)) }));
    const root = tree.flush();
    const loaded = StateTree.load(store, root);
    expect(loaded.version).toBe(5n);
    expect(loaded.getActor(100n)!.balance).toBe(5n);
    expect(loaded.getActor(101n)!.delegatedAddress!.toString()).toBe(
      Address.newDelegated(10n, new Uint8Array(20).fill(3)).toString(),
    );
    expect(loaded.getActor(102n)).toBeUndefined();
    expect(loaded.flush().equals(root)).toBe(true);
    expect([...loaded.actors()].map(([id]) => id).sort()).toEqual([100n, 101n]);
  });

  test('nested transactions revert independently', () => {
    const tree = StateTree.create(new MemoryBlockstore());
    tree.setActor(100n, actor(1n));
    tree.beginTransaction();
    tree.setActor(100n, actor(2n));
    tree.beginTransaction();
    tree.setActor(100n, actor(3n));
    tree.setActor(101n, actor(9n));
    tree.endTransaction(true);
    expect(tree.getActor(100n)!.balance).toBe(2n);
    expect(tree.getActor(101n)).toBeUndefined();
    tree.beginTransaction();
    tree.deleteActor(100n);
    tree.endTransaction(false);
    expect(tree.getActor(100n)).toBeUndefined();
    tree.endTransaction(true);
    expect(tree.getActor(100n)!.balance).toBe(1n);
  });

  test('an inner commit is undone by an outer revert', () => {
    const tree = StateTree.create(new MemoryBlockstore());
    tree.beginTransaction();
    tree.beginTransaction();
    tree.setActor(100n, actor(3n));
    tree.endTransaction(false);
    tree.endTransaction(true);
    expect(tree.getActor(100n)).toBeUndefined();
  });

  test('new robust addresses get the Init actor’s next ID; a revert forgets them', () => {
    const tree = treeWithInit();
    const a = Address.newActor(new Uint8Array([1]));
    const b = Address.newActor(new Uint8Array([2]));
    expect(tree.registerNewAddress(a)).toBe(100n);
    tree.beginTransaction();
    expect(tree.registerNewAddress(b)).toBe(101n);
    expect(tree.lookupId(b)).toBe(101n);
    tree.endTransaction(true);
    expect(tree.lookupId(b)).toBeUndefined();
    expect(tree.initState().nextId).toBe(101n);
    expect(tree.registerNewAddress(b)).toBe(101n);
    const root = tree.flush();
    const loaded = StateTree.load(tree.store, root);
    expect(loaded.lookupId(a)).toBe(100n);
    expect(loaded.lookupId(b)).toBe(101n);
    expect(loaded.lookupId(Address.newId(7n))).toBe(7n);
  });

  test('refuses what its version cannot hold, unknown versions, and flushing mid-transaction', () => {
    const store = new MemoryBlockstore();
    const v4 = StateTree.create(store, 4n);
    expect(() =>
      v4.setActor(100n, actor(1n, { delegatedAddress: Address.newDelegated(10n, new Uint8Array(20)) })),
    ).toThrow(StateError);
    const future = putCbor(store, [6, putCbor(store, []), putCbor(store, [])]);
    expect(() => StateTree.load(store, future)).toThrow(
      expect.objectContaining({ code: StateErrorCode.UnsupportedVersion }),
    );
    v4.beginTransaction();
    expect(() => v4.flush()).toThrow(expect.objectContaining({ code: StateErrorCode.TransactionMisuse }));
    expect(() => StateTree.create(store).endTransaction(false)).toThrow(StateError);
  });
});

interface IndexedActor {
  address: string;
  actor: { code: string; head: string; nonce: number; balance: string; delegated_address?: string | null };
}

interface StateIndex {
  vectors: {
    file: string;
    states: { which: string; state_root_cid: string; state_root: { version: number }; actors: IndexedActor[] }[];
  }[];
}

describe('real FVM-era state trees (fvm_ext vectors: state tree versions 4 and 5)', () => {
  const index = readVectorJson<StateIndex>('hamt-amt', 'fvm_vectors_state_index.json');
  test.each(index.vectors.map((v) => [v.file, v] as const))(
    '%s: every indexed actor reads back, and an unchanged tree re-flushes to its root',
    async (file, entry) => {
      const vector = readVectorJson<{ car: string }>('hamt-amt', file);
      const store = new MemoryBlockstore();
      await importCar(
        store,
        (async function* () {
          yield new Uint8Array(gunzipSync(fromBase64(vector.car)));
        })(),
      );
      for (const state of entry.states) {
        const root: CID = parseCid(state.state_root_cid);
        const tree = StateTree.load(store, root);
        expect(tree.version).toBe(BigInt(state.state_root.version));
        for (const { address, actor: expected } of state.actors) {
          const found = tree.getActor(Address.fromString(address).id())!;
          expect(found.code.toString()).toBe(expected.code);
          expect(found.head.toString()).toBe(expected.head);
          expect(found.nonce).toBe(BigInt(expected.nonce));
          expect(found.balance).toBe(BigInt(expected.balance));
          expect(found.delegatedAddress?.toString() ?? null).toBe(expected.delegated_address ?? null);
        }
        expect(tree.flush().equals(root)).toBe(true);
      }
    },
  );
});

test('an address resolved inside a transaction that created its mapping is forgotten on revert', () => {
  const tree = treeWithInit();
  const address = Address.newActor(new Uint8Array([9]));
  const init = tree.getActor(INIT_ACTOR_ID)!;
  tree.beginTransaction();
  // What Init's Exec does: map the address in its own state.
  const state = tree.initState();
  const map = Hamt.load(tree.store, state.addressMap);
  map.set(address.bytes, 100n);
  const head = putCborBytes(tree.store, encodeInitState({ ...state, addressMap: map.flush(), nextId: 101n }));
  tree.setActor(INIT_ACTOR_ID, { ...init, head });
  expect(tree.lookupId(address)).toBe(100n);
  tree.endTransaction(true);
  expect(tree.lookupId(address)).toBeUndefined();
});
