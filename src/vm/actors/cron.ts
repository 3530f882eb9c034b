/** Cron actor (f03): at the end of every epoch, calls each registered (actor, method) pair (builtin-actors `actors/cron`). */
import { SYSTEM_ACTOR_ID } from '../../state/index.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { type Address, encodeCbor } from '../../types/index.js';
import { CronMethod, METHOD_CONSTRUCTOR } from '../methods.js';
import type { StateCodec } from '../runtime.js';
import { type ActorImplementation, decodeParams, type MethodHandler } from './actor.js';
import { type CborNode, readAddress, readArray, readTuple, readUint64 } from './cbor.js';

export interface CronEntry {
  readonly receiver: Address;
  readonly methodNum: bigint;
}

export interface CronState {
  entries: CronEntry[];
}

function readEntries(node: CborNode, path: string): CronEntry[] {
  return readArray(node, path, (entry, at) => {
    const [receiver, methodNum] = readTuple(entry, at, 2);
    return { receiver: readAddress(receiver, `${at}.Receiver`), methodNum: readUint64(methodNum, `${at}.MethodNum`) };
  });
}

function entriesToCborNode(entries: readonly CronEntry[]): CborNode[] {
  return entries.map((entry) => [entry.receiver.bytes, entry.methodNum]);
}

export const cronStateCodec: StateCodec<CronState> = {
  decode(bytes) {
    const [entries] = readTuple(decodeChainCbor(bytes, 'CronState'), 'CronState', 1);
    return { entries: readEntries(entries, 'CronState.Entries') };
  },
  encode: (state) => encodeCbor([entriesToCborNode(state.entries)]),
};

/** Cron's constructor params, `[Entries]`. */
export function encodeCronConstructorParams(entries: readonly CronEntry[]): Uint8Array {
  return encodeCbor([entriesToCborNode(entries)]);
}

export const cronActor: ActorImplementation = {
  type: 'cron',
  methods: new Map<bigint, MethodHandler>([
    [
      METHOD_CONSTRUCTOR,
      (rt, params) => {
        const entries = decodeParams(params, 'CronConstructorParams', (node, path) =>
          readEntries(readTuple(node, path, 1)[0], `${path}.Entries`),
        );
        rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
        rt.createState(cronStateCodec, { entries });
        return null;
      },
    ],
    [
      CronMethod.EpochTick,
      (rt) => {
        rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
        // A failing entry does not stop the others (builtin-actors logs and continues).
        for (const entry of rt.state(cronStateCodec).entries) rt.send(entry.receiver, entry.methodNum, null, 0n);
        return null;
      },
    ],
  ]),
};
