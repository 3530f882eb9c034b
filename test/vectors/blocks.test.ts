/**
 * Real Filecoin mainnet, epochs 0–39 (shared/vectors/blocks): headers, tipsets and messages
 * re-encode byte-identically with their CIDs, and every signature verifies through our codecs.
 */
import { bls, secp256k1 } from '../../src/crypto/index.js';
import {
  Address,
  type BlockHeader,
  blockCid,
  blockHeaderFromLotusJson,
  blockHeaderToLotusJson,
  blockSigningBytes,
  decodeBlockHeader,
  decodeMessage,
  decodeSignedMessage,
  decodeTipSet,
  decodeTxMeta,
  encodeBlockHeader,
  encodeMessage,
  encodeSignedMessage,
  encodeTipSet,
  encodeTxMeta,
  type Message,
  messageCid,
  messageSigningBytes,
  parseJsonLossless,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  stringifyJsonLossless,
  TipSet,
  tipSetFromLotusJson,
  tipSetToLotusJson,
  txMetaCid,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJson } from './vectors-dir.js';

interface HeaderVector {
  cid: string;
  height: number;
  cbor_hex: string;
  decoded: {
    Miner: string;
    Parents: string[];
    ParentWeight: string;
    Height: number;
    ParentStateRoot: string;
    ParentMessageReceipts: string;
    Messages: string;
    Timestamp: number;
    ParentBaseFee: string;
    BLSAggregate_hex: string | null;
    BlockSig_hex: string | null;
    Ticket: { VRFProof_hex: string } | null;
    ElectionProof: { WinCount: number; VRFProof_hex: string } | null;
    BeaconEntries: Array<{ Round: number; Data_hex: string }>;
    WinPoStProof: Array<{ PoStProof: number; ProofBytes_hex: string }>;
  };
  txmeta: { cid: string; cbor_hex: string; bls_message_cids: string[]; secpk_message_cids: string[] };
  derived?: { worker_bls_pubkey_hex: string; worker_key_address: string; signing_bytes_hex: string };
}
interface TipSetVector {
  height: number;
  cids: string[];
  tsk_bytes_hex_derived: string;
  tsk_cid_derived: string;
}
interface MessageVector {
  cid: string;
  kind: 'bls_unsigned_message' | 'secp256k1_signed_message';
  cbor_hex: string;
  unsigned_message_cid_derived?: string;
  unsigned_message_cbor_hex_derived?: string;
}

const { headers } = readVectorJson<{ headers: HeaderVector[] }>('blocks', 'export40_headers.json');
const { tipsets } = readVectorJson<{ tipsets: TipSetVector[] }>('blocks', 'export40_tipsets.json');
const { messages } = readVectorJson<{ messages: MessageVector[] }>('blocks', 'export40_messages.json');

const headerByCid = new Map(headers.map((h) => [h.cid, decodeBlockHeader(fromHex(h.cbor_hex))]));
const header = (cid: string): BlockHeader => headerByCid.get(cid) as BlockHeader;
const signatureHex = (s: { type: number; data: Uint8Array } | null) =>
  s === null ? null : `0${s.type}${toHex(s.data)}`;

describe('export40 block headers', () => {
  it('holds 49 headers, 48 of them signed', () => {
    expect(headers).toHaveLength(49);
    expect(headers.filter((h) => h.derived !== undefined)).toHaveLength(48);
  });

  it.each(headers)('height $height $cid: decodes every field and re-encodes byte-identically', (v) => {
    const h = header(v.cid);
    const d = v.decoded;
    expect(h.miner.toString('f')).toBe(d.Miner);
    expect(h.parents.map(String)).toEqual(d.Parents);
    expect(h.parentWeight).toBe(BigInt(d.ParentWeight));
    expect(h.height).toBe(BigInt(d.Height));
    expect(h.parentStateRoot.toString()).toBe(d.ParentStateRoot);
    expect(h.parentMessageReceipts.toString()).toBe(d.ParentMessageReceipts);
    expect(h.messages.toString()).toBe(d.Messages);
    expect(h.timestamp).toBe(BigInt(d.Timestamp));
    expect(h.parentBaseFee).toBe(BigInt(d.ParentBaseFee));
    expect(signatureHex(h.blsAggregate)).toBe(d.BLSAggregate_hex);
    expect(signatureHex(h.blockSig)).toBe(d.BlockSig_hex);
    expect(h.ticket === null ? null : toHex(h.ticket.vrfProof)).toBe(d.Ticket?.VRFProof_hex ?? null);
    expect(h.electionProof?.winCount).toBe(d.ElectionProof === null ? undefined : BigInt(d.ElectionProof.WinCount));
    expect(h.electionProof === null ? null : toHex(h.electionProof.vrfProof)).toBe(
      d.ElectionProof?.VRFProof_hex ?? null,
    );
    expect(h.beaconEntries.map((e) => [Number(e.round), toHex(e.data)])).toEqual(
      d.BeaconEntries.map((e) => [e.Round, e.Data_hex]),
    );
    expect(h.winPoStProof.map((p) => [Number(p.postProof), toHex(p.proofBytes)])).toEqual(
      d.WinPoStProof.map((p) => [p.PoStProof, p.ProofBytes_hex]),
    );

    expect(toHex(encodeBlockHeader(h))).toBe(v.cbor_hex);
    expect(blockCid(h).toString()).toBe(v.cid);
    const json = parseJsonLossless(stringifyJsonLossless(blockHeaderToLotusJson(h)));
    expect(toHex(encodeBlockHeader(blockHeaderFromLotusJson(json)))).toBe(v.cbor_hex);
  });

  it.each(headers.filter((v) => v.derived !== undefined))('height $height $cid: BlockSig verifies', (v) => {
    const h = header(v.cid);
    const derived = v.derived as NonNullable<HeaderVector['derived']>;
    const publicKey = fromHex(derived.worker_bls_pubkey_hex);
    expect(Address.newBls(publicKey).toString('f')).toBe(derived.worker_key_address);
    const signingBytes = blockSigningBytes(h);
    expect(toHex(signingBytes)).toBe(derived.signing_bytes_hex);
    expect(h.blockSig?.type).toBe(SignatureType.BLS);
    const signature = h.blockSig?.data as Uint8Array;
    expect(bls.verify(publicKey, signingBytes, signature)).toBe(true);
    // Any change to the header changes what was signed.
    const tampered = blockSigningBytes({ ...h, timestamp: h.timestamp + 1n });
    expect(bls.verify(publicKey, tampered, signature)).toBe(false);
  });

  it.each(headers)('height $height $cid: TxMeta re-encodes to the Messages CID', (v) => {
    const txMeta = decodeTxMeta(fromHex(v.txmeta.cbor_hex));
    expect(toHex(encodeTxMeta(txMeta))).toBe(v.txmeta.cbor_hex);
    expect(txMetaCid(txMeta).toString()).toBe(v.txmeta.cid);
    expect(header(v.cid).messages.equals(txMetaCid(txMeta))).toBe(true);
  });
});

describe('export40 tipsets', () => {
  it('holds 33 tipsets, 10 of them with several blocks', () => {
    expect(tipsets).toHaveLength(33);
    expect(tipsets.filter((t) => t.cids.length > 1)).toHaveLength(10);
  });

  it.each(tipsets)('height $height: canonical order, key bytes and key CID', (v) => {
    // Feed the blocks reversed so that the order must come from the tickets.
    const tipSet = TipSet.fromHeaders(v.cids.map(header).reverse());
    expect(tipSet.cids.map(String)).toEqual(v.cids);
    expect(tipSet.height).toBe(BigInt(v.height));
    expect(toHex(tipSet.key.bytes)).toBe(v.tsk_bytes_hex_derived);
    expect(tipSet.key.cid().toString()).toBe(v.tsk_cid_derived);
    expect(tipSet.minTicketBlock).toBe(header(v.cids[0] as string));
    const json = parseJsonLossless(stringifyJsonLossless(tipSetToLotusJson(tipSet)));
    expect(tipSetFromLotusJson(json).key.equals(tipSet.key)).toBe(true);
    expect(decodeTipSet(encodeTipSet(tipSet)).key.equals(tipSet.key)).toBe(true);
  });

  it("each tipset's Parents is its parent tipset's key, across null rounds", () => {
    const built = tipsets.map((v) => TipSet.fromHeaders(v.cids.map(header)));
    for (let i = 1; i < built.length; i++) {
      const [parent, child] = [built[i - 1] as TipSet, built[i] as TipSet];
      expect(child.parents.equals(parent.key)).toBe(true);
      expect(child.isChildOf(parent)).toBe(true);
      for (const block of child.blocks) expect(block.parents.map(String)).toEqual(parent.cids.map(String));
    }
    expect(built.some((t, i) => i > 0 && t.height > (built[i - 1] as TipSet).height + 1n)).toBe(true);
  });
});

describe('export40 messages', () => {
  const blsMessages = messages.filter((m) => m.kind === 'bls_unsigned_message');
  const secp = messages.filter((m) => m.kind === 'secp256k1_signed_message');
  const blsByCid = new Map<string, Message>(blsMessages.map((m) => [m.cid, decodeMessage(fromHex(m.cbor_hex))]));

  it('holds 41 BLS and 206 secp256k1 messages', () => {
    expect(blsMessages).toHaveLength(41);
    expect(secp).toHaveLength(206);
  });

  it.each(blsMessages)('BLS $cid re-encodes with its CID', (v) => {
    const message = blsByCid.get(v.cid) as Message;
    expect(toHex(encodeMessage(message))).toBe(v.cbor_hex);
    expect(messageCid(message).toString()).toBe(v.cid);
    expect(
      signedMessageCid({ message, signature: { type: SignatureType.BLS, data: new Uint8Array(96) } }).toString(),
    ).toBe(v.cid);
  });

  it.each(secp)('secp256k1 $cid re-encodes with its CID and recovers its sender', (v) => {
    const signed: SignedMessage = decodeSignedMessage(fromHex(v.cbor_hex));
    expect(toHex(encodeSignedMessage(signed))).toBe(v.cbor_hex);
    expect(signedMessageCid(signed).toString()).toBe(v.cid);
    expect(toHex(encodeMessage(signed.message))).toBe(v.unsigned_message_cbor_hex_derived);
    expect(messageCid(signed.message).toString()).toBe(v.unsigned_message_cid_derived);
    expect(signed.signature.type).toBe(SignatureType.Secp256k1);
    const signer = Address.newSecp256k1(secp256k1.recover(signed.signature.data, messageSigningBytes(signed.message)));
    expect(signer.equals(signed.message.from)).toBe(true);
  });

  const blocksWithBls = headers.filter((h) => h.txmeta.bls_message_cids.length > 0);

  it.each(blocksWithBls)('height $height $cid: BLSAggregate verifies over its BLS messages', (v) => {
    const items = v.txmeta.bls_message_cids.map((cid) => {
      const message = blsByCid.get(cid) as Message;
      return { publicKey: message.from.payload, message: messageSigningBytes(message) };
    });
    const aggregate = header(v.cid).blsAggregate?.data as Uint8Array;
    expect(bls.aggregateVerify(items, aggregate)).toBe(true);
    expect(bls.aggregateVerify(items.slice(1), aggregate)).toBe(false);
  });

  it('blocks without BLS messages carry the empty aggregate', () => {
    const others = headers.filter((h) => h.height > 0 && h.txmeta.bls_message_cids.length === 0);
    expect(others.length).toBeGreaterThan(0);
    for (const v of others) expect(header(v.cid).blsAggregate?.data).toEqual(bls.IDENTITY_SIGNATURE);
  });
});
