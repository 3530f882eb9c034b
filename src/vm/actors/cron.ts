/** Cron actor (f03): at the end of every epoch, calls each registered (actor, method) pair (builtin-actors `actors/cron`). */
import { SYSTEM_ACTOR_ID } from '../../state/index.js';
import { addressKind, declareStruct, kinds, type StructValue } from '../../types/index.js';
import { CronMethod } from '../methods.js';
import type { StateCodec } from '../runtime.js';
import { decodeParams, defineActor } from './actor.js';

/** builtin-actors `actors/cron/src/state.rs` `Entry`: an actor and the method cron calls on it. */
export const cronEntryStruct = declareStruct('Entry', [
  { key: 'receiver', json: 'Receiver', kind: addressKind },
  { key: 'methodNum', json: 'MethodNum', kind: kinds.uint64 },
]);
export type CronEntry = StructValue<typeof cronEntryStruct>;

/** builtin-actors `State`; its constructor's params are the same one field. */
const cronStateFields = [{ key: 'entries', json: 'Entries', kind: kinds.array(cronEntryStruct.kind) }] as const;
export const cronStateStruct = declareStruct('CronState', cronStateFields);
export type CronState = StructValue<typeof cronStateStruct>;

export const cronStateCodec: StateCodec<CronState> = cronStateStruct;

const cronConstructorParams = declareStruct('CronConstructorParams', cronStateFields);

/** Cron's constructor params, `[Entries]`. */
export function encodeCronConstructorParams(entries: readonly CronEntry[]): Uint8Array {
  return cronConstructorParams.encode({ entries });
}

export const cronActor = defineActor('cron', CronMethod, {
  Constructor: (rt, params) => {
    const { entries } = decodeParams(params, cronConstructorParams);
    rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
    rt.createState(cronStateCodec, { entries });
    return null;
  },
  EpochTick: (rt) => {
    rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
    // A failing entry does not stop the others (builtin-actors logs and continues).
    for (const entry of rt.state(cronStateCodec).entries) rt.send(entry.receiver, entry.methodNum, null, 0n);
    return null;
  },
});
