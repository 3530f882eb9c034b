/**
 * Which actors a message has already paid to read and to update (ref-fvm
 * `call_manager/state_access_tracker.rs`, FIP-0057): the first lookup of an actor costs
 * OnActorLookup and its first update OnActorUpdate; singletons are "preloaded" and free. What a
 * reverted call recorded is forgotten with it.
 */
export const ActorAccess = { None: 0, Read: 1, Updated: 2 } as const;
export type ActorAccess = (typeof ActorAccess)[keyof typeof ActorAccess];

export class StateAccessTracker {
  readonly #actors = new Map<bigint, ActorAccess>();
  readonly #journal: Array<Array<[bigint, ActorAccess]>> = [];

  constructor(preloaded: Iterable<bigint>) {
    for (const id of preloaded) this.#actors.set(id, ActorAccess.Updated);
  }

  access(id: bigint): ActorAccess {
    return this.#actors.get(id) ?? ActorAccess.None;
  }

  recordRead(id: bigint): void {
    if (this.access(id) === ActorAccess.None) this.#set(id, ActorAccess.Read);
  }

  recordUpdate(id: bigint): void {
    if (this.access(id) !== ActorAccess.Updated) this.#set(id, ActorAccess.Updated);
  }

  beginTransaction(): void {
    this.#journal.push([]);
  }

  endTransaction(revert: boolean): void {
    const entries = this.#journal.pop() ?? [];
    if (revert) {
      for (let i = entries.length - 1; i >= 0; i--) {
        const [id, previous] = entries[i]!;
        if (previous === ActorAccess.None) this.#actors.delete(id);
        else this.#actors.set(id, previous);
      }
      return;
    }
    const parent = this.#journal.at(-1);
    if (parent !== undefined) for (const entry of entries) parent.push(entry);
  }

  #set(id: bigint, access: ActorAccess): void {
    this.#journal.at(-1)?.push([id, this.access(id)]);
    this.#actors.set(id, access);
  }
}
