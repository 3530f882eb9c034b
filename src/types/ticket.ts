/** Ticket: CBOR `[VRFProof]`, the block's VRF output that orders blocks in a tipset. */
import { encodeCbor } from './cbor.js';
import { readBytes, readTuple } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { bytesToLotusJson, jsonField, readJsonBytes, readJsonObject } from './json.js';

export interface Ticket {
  readonly vrfProof: Uint8Array;
}

export interface TicketJson {
  VRFProof: string | null;
}

export function ticketToCborNode(ticket: Ticket): CborNode[] {
  return [ticket.vrfProof];
}

export function ticketFromCborNode(node: CborNode, path = 'Ticket'): Ticket {
  const [vrfProof] = readTuple(node, path, 1);
  return { vrfProof: readBytes(vrfProof, `${path}.VRFProof`) };
}

export function encodeTicket(ticket: Ticket): Uint8Array {
  return encodeCbor(ticketToCborNode(ticket));
}

export function decodeTicket(bytes: Uint8Array): Ticket {
  return ticketFromCborNode(decodeChainCbor(bytes, 'Ticket'));
}

export function ticketToLotusJson(ticket: Ticket): TicketJson {
  return { VRFProof: bytesToLotusJson(ticket.vrfProof) };
}

export function ticketFromLotusJson(json: unknown, path = 'Ticket'): Ticket {
  const object = readJsonObject(json, path);
  return { vrfProof: readJsonBytes(jsonField(object, 'VRFProof'), `${path}.VRFProof`) };
}
