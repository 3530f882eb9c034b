/**
 * Real encodings to mutate: every block of Filecoin mainnet epochs 0–39
 * (shared/vectors/blocks/export40.car: headers, BLS messages, signed messages, TxMetas, the genesis
 * state), Lotus's serialization vectors, go-address's address vectors, and the parts of the real
 * headers and messages re-encoded with the project's own encoders.
 */
import { createReadStream } from 'node:fs';
import { type Block, readCar } from '../../src/ipld/index.js';
import {
  addressToCborNode,
  type BlockHeader,
  beaconEntryToCborNode,
  bigIntToCborNode,
  blockCid,
  decodeBlockHeader,
  decodeMessage,
  decodeSignedMessage,
  decodeTxMeta,
  electionProofToCborNode,
  encodeBlockMsg,
  encodeCbor,
  encodeTipSet,
  encodeTipSetKey,
  type Message,
  messageCid,
  postProofToCborNode,
  type SignedMessage,
  signatureToCborNode,
  TipSet,
  TipSetKey,
  ticketToCborNode,
} from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import { readVectorJson, vectorPath } from '../vectors/vectors-dir.js';

export interface RealEncodings {
  /** The CAR's blocks, in file order. */
  readonly blocks: readonly Block[];
  readonly headers: Uint8Array[];
  readonly messages: Uint8Array[];
  readonly signedMessages: Uint8Array[];
  readonly txMetas: Uint8Array[];
  readonly addresses: Uint8Array[];
  readonly bigInts: Uint8Array[];
  readonly tickets: Uint8Array[];
  readonly electionProofs: Uint8Array[];
  readonly beaconEntries: Uint8Array[];
  readonly postProofs: Uint8Array[];
  readonly signatures: Uint8Array[];
  readonly tipSetKeys: Uint8Array[];
  readonly tipSets: Uint8Array[];
  readonly blockMsgs: Uint8Array[];
  /** Decoded forms, for the codecs that embed them. */
  readonly decodedHeaders: BlockHeader[];
  readonly decodedMessages: Message[];
  readonly decodedSignedMessages: SignedMessage[];
}

/** At most `limit` distinct encodings (by hex), so the corpus stays small and varied. */
function distinct(items: Iterable<Uint8Array>, limit = 40): Uint8Array[] {
  const seen = new Map<string, Uint8Array>();
  for (const item of items) {
    if (seen.size >= limit) break;
    seen.set(Buffer.from(item).toString('hex'), item);
  }
  return [...seen.values()];
}

function tryDecode<T>(decode: (bytes: Uint8Array) => T, bytes: Uint8Array): T | undefined {
  try {
    return decode(bytes);
  } catch {
    return undefined;
  }
}

export async function loadRealEncodings(): Promise<RealEncodings> {
  const car = await readCar(createReadStream(vectorPath('blocks', 'export40.car')));
  const blocks: Block[] = [];
  for await (const block of car) blocks.push(block);
  const roots = car.roots;
  const headers: Uint8Array[] = [];
  const decodedHeaders: BlockHeader[] = [];
  const messages: Uint8Array[] = [];
  const decodedMessages: Message[] = [];
  const signedMessages: Uint8Array[] = [];
  const decodedSignedMessages: SignedMessage[] = [];
  const txMetas: Uint8Array[] = [];
  for (const { bytes } of blocks) {
    const header = tryDecode(decodeBlockHeader, bytes);
    if (header !== undefined) {
      headers.push(bytes);
      decodedHeaders.push(header);
      continue;
    }
    const signed = tryDecode(decodeSignedMessage, bytes);
    if (signed !== undefined) {
      signedMessages.push(bytes);
      decodedSignedMessages.push(signed);
      continue;
    }
    const message = tryDecode(decodeMessage, bytes);
    if (message !== undefined) {
      messages.push(bytes);
      decodedMessages.push(message);
      continue;
    }
    if (tryDecode(decodeTxMeta, bytes) !== undefined) txMetas.push(bytes);
  }
  for (const vector of readVectorJson<{ cbor_hex: string }[]>('serialization', 'block_headers.json')) {
    headers.push(fromHex(vector.cbor_hex));
  }
  for (const vector of readVectorJson<{ hex_cbor: string }[]>('serialization', 'unsigned_messages.json')) {
    messages.push(fromHex(vector.hex_cbor));
  }
  const addressVectors = readVectorJson<Record<string, unknown>>('address', 'address_vectors.json');
  const addresses: Uint8Array[] = [];
  for (const list of Object.values(addressVectors)) {
    if (!Array.isArray(list)) continue;
    for (const entry of list as { cbor_hex?: unknown }[]) {
      if (typeof entry?.cbor_hex === 'string') addresses.push(fromHex(entry.cbor_hex));
    }
  }
  const cbor = (node: Parameters<typeof encodeCbor>[0]) => encodeCbor(node);
  const allMessages = [...decodedMessages, ...decodedSignedMessages.map((s) => s.message)];
  addresses.push(...decodedHeaders.map((h) => cbor(addressToCborNode(h.miner))));
  addresses.push(...allMessages.flatMap((m) => [cbor(addressToCborNode(m.to)), cbor(addressToCborNode(m.from))]));
  const bigInts = [
    ...decodedHeaders.flatMap((h) => [cbor(bigIntToCborNode(h.parentWeight)), cbor(bigIntToCborNode(h.parentBaseFee))]),
    ...allMessages.flatMap((m) => [cbor(bigIntToCborNode(m.value)), cbor(bigIntToCborNode(m.gasFeeCap))]),
  ];
  const present = <T>(items: (T | null)[]): T[] => items.filter((item): item is T => item !== null);
  const tickets = present(decodedHeaders.map((h) => h.ticket)).map((t) => cbor(ticketToCborNode(t)));
  const electionProofs = present(decodedHeaders.map((h) => h.electionProof)).map((p) =>
    cbor(electionProofToCborNode(p)),
  );
  const beaconEntries = decodedHeaders.flatMap((h) => h.beaconEntries.map((e) => cbor(beaconEntryToCborNode(e))));
  const postProofs = decodedHeaders.flatMap((h) => h.winPoStProof.map((p) => cbor(postProofToCborNode(p))));
  const signatures = [
    ...present(decodedHeaders.flatMap((h) => [h.blockSig, h.blsAggregate])),
    ...decodedSignedMessages.map((s) => s.signature),
  ].map((s) => cbor(signatureToCborNode(s)));
  const byHeight = new Map<bigint, BlockHeader[]>();
  for (const header of decodedHeaders) byHeight.set(header.height, [...(byHeight.get(header.height) ?? []), header]);
  const tipSetList = [...byHeight.values()].flatMap((group) => {
    try {
      return [TipSet.fromHeaders(group)];
    } catch {
      return [];
    }
  });
  const tipSetKeys = [
    ...tipSetList.map((t) => encodeTipSetKey(t.key)),
    ...decodedHeaders.map((h) => encodeTipSetKey(TipSetKey.fromCids(h.parents))),
    encodeTipSetKey(TipSetKey.fromCids(roots)),
  ];
  const blockMsgs = decodedHeaders.slice(0, 20).map((header, i) =>
    encodeBlockMsg({
      header,
      blsMessages: decodedMessages.slice(i, i + 2).map(messageCid),
      secpkMessages: [blockCid(header)],
    }),
  );
  return {
    blocks,
    headers: distinct(headers),
    messages: distinct(messages),
    signedMessages: distinct(signedMessages),
    txMetas: distinct(txMetas),
    addresses: distinct(addresses),
    bigInts: distinct(bigInts),
    tickets: distinct(tickets),
    electionProofs: distinct(electionProofs),
    beaconEntries: distinct(beaconEntries),
    postProofs: distinct(postProofs),
    signatures: distinct(signatures),
    tipSetKeys: distinct(tipSetKeys),
    tipSets: distinct(tipSetList.map(encodeTipSet), 10),
    blockMsgs: distinct(blockMsgs, 10),
    decodedHeaders,
    decodedMessages,
    decodedSignedMessages,
  };
}
