/**
 * Actor events (FIP-0049): what a message's receipt points to with `EventsRoot`, an AMT of these
 * (filecoin-project/lotus `chain/types/event.go`, filecoin-project/ref-fvm `shared/src/event`):
 * the emitting actor's ID and its entries, each a flagged key with a codec-tagged value.
 */
import { array, bytes, text, uint64 } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const eventEntryStruct = declareStruct('EventEntry', [
  { key: 'flags', json: 'Flags', kind: uint64, description: 'indexing flags (a uint8 in Lotus)' },
  { key: 'key', json: 'Key', kind: text },
  { key: 'codec', json: 'Codec', kind: uint64, description: 'the IPLD codec of Value (0x55 raw)' },
  { key: 'value', json: 'Value', kind: bytes },
]);

export type EventEntry = StructValue<typeof eventEntryStruct>;

export const eventStruct = declareStruct('Event', [
  { key: 'emitter', json: 'Emitter', kind: uint64, description: 'the actor ID of the emitter' },
  { key: 'entries', json: 'Entries', kind: array(eventEntryStruct.kind) },
]);
export type Event = StructValue<typeof eventStruct>;
export type EventJson = StructJson<typeof eventStruct>;

/** Lotus `types.EventAMTBitwidth`: the bit width of a receipt's events AMT. */
export const EVENT_AMT_BIT_WIDTH = 5;
