/** Ticket: CBOR `[VRFProof]`, the block's VRF output that orders blocks in a tipset. */
import { bytes } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const ticketStruct = declareStruct('Ticket', [{ key: 'vrfProof', json: 'VRFProof', kind: bytes }]);

export type Ticket = StructValue<typeof ticketStruct>;
export type TicketJson = StructJson<typeof ticketStruct>;

export const ticketToCborNode = ticketStruct.toCborNode;
export const encodeTicket = ticketStruct.encode;
export const decodeTicket = ticketStruct.decode;
export const ticketToLotusJson = ticketStruct.toLotusJson;
export const ticketFromLotusJson = ticketStruct.fromLotusJson;
