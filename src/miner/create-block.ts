/**
 * Lotus `MinerCreateBlock` (`filcns.CreateBlock`, filecoin-project/lotus
 * `chain/consensus/filcns/mine.go`): turns a template — the election's ticket, proof, beacon values
 * and winning PoSt, plus the chosen messages — into a signed block on its parent tipset: parent
 * state and receipts from executing the parents, their weight and child base fee, BLS messages
 * split from secp ones with their signatures aggregated, the TxMeta, and the worker's signature
 * over the header. Nothing is stored or published.
 */
import { childBaseFee, txMetaCidOf } from '../chain/index.js';
import { lookbackForRound, minerWorkerKey } from '../consensus/index.js';
import { bls } from '../crypto/index.js';
import { StateTree } from '../state/index.js';
import {
  type Address,
  addressFromLotusJson,
  type BeaconEntry,
  type BlockHeader,
  type BlockMsg,
  beaconEntryFromLotusJson,
  blockSigningBytes,
  type ElectionProof,
  electionProofFromLotusJson,
  jsonField,
  messageCid,
  type PoStProof,
  postProofFromLotusJson,
  readJsonArray,
  readJsonInt64,
  readJsonNullable,
  readJsonObject,
  readJsonUint64,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  signedMessageFromLotusJson,
  type Ticket,
  type TipSetKey,
  ticketFromLotusJson,
  tipSetKeyFromLotusJson,
} from '../types/index.js';
import type { MinerContext, SignFunction } from './context.js';
import { MinerError, MinerErrorCode } from './errors.js';

/** Lotus `api.BlockTemplate`. */
export interface BlockTemplate {
  readonly miner: Address;
  readonly parents: TipSetKey;
  readonly ticket: Ticket;
  readonly eproof: ElectionProof;
  readonly beaconValues: readonly BeaconEntry[];
  /** BLS and secp messages mixed; split by signature type. */
  readonly messages: readonly SignedMessage[];
  readonly epoch: bigint;
  readonly timestamp: bigint;
  readonly winningPoStProof: readonly PoStProof[];
}

/** Decodes Lotus's BlockTemplate JSON (`Eproof`, `BeaconValues`, `Epoch`, `WinningPoStProof`). */
export function blockTemplateFromLotusJson(json: unknown, path = 'BlockTemplate'): BlockTemplate {
  const object = readJsonObject(json, path);
  const field = (name: string) => jsonField(object, name);
  const required = <T>(value: T | null, name: string): T => {
    if (value === null) throw new MinerError(MinerErrorCode.BadTemplate, `${path}.${name}: a block needs one`);
    return value;
  };
  return {
    miner: addressFromLotusJson(field('Miner'), `${path}.Miner`),
    parents: tipSetKeyFromLotusJson(field('Parents'), `${path}.Parents`),
    ticket: required(readJsonNullable(field('Ticket'), `${path}.Ticket`, ticketFromLotusJson), 'Ticket'),
    eproof: required(readJsonNullable(field('Eproof'), `${path}.Eproof`, electionProofFromLotusJson), 'Eproof'),
    beaconValues: readJsonArray(field('BeaconValues') ?? [], `${path}.BeaconValues`, beaconEntryFromLotusJson),
    messages: readJsonArray(field('Messages') ?? [], `${path}.Messages`, signedMessageFromLotusJson),
    epoch: readJsonInt64(field('Epoch'), `${path}.Epoch`),
    timestamp: readJsonUint64(field('Timestamp'), `${path}.Timestamp`),
    winningPoStProof: readJsonArray(
      field('WinningPoStProof') ?? [],
      `${path}.WinningPoStProof`,
      postProofFromLotusJson,
    ),
  };
}

export async function createBlock(ctx: MinerContext, template: BlockTemplate, sign: SignFunction): Promise<BlockMsg> {
  const { chain, states } = ctx;
  let parent: ReturnType<typeof chain.loadTipSet>;
  try {
    parent = chain.loadTipSet(template.parents);
  } catch (error) {
    throw new MinerError(MinerErrorCode.BadTemplate, `cannot load the parent tipset: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (template.epoch <= parent.height) {
    throw new MinerError(
      MinerErrorCode.BadTemplate,
      `epoch ${template.epoch} is not above the parent's ${parent.height}`,
    );
  }
  const lookback = await lookbackForRound(chain, states, parent, template.epoch);
  const worker = minerWorkerKey(StateTree.load(chain.blockstore, lookback.stateRoot), template.miner);
  const state = await states.stateOf(parent);

  const blsMessages = template.messages.filter((m) => m.signature.type === SignatureType.BLS);
  const secpMessages = template.messages.filter((m) => m.signature.type !== SignatureType.BLS);
  const blsCids = blsMessages.map((m) => messageCid(m.message));
  const secpCids = secpMessages.map(signedMessageCid);
  const aggregate =
    blsMessages.length === 0 ? bls.IDENTITY_SIGNATURE : bls.aggregate(blsMessages.map((m) => m.signature.data));

  const unsigned: BlockHeader = {
    miner: template.miner,
    ticket: template.ticket,
    electionProof: template.eproof,
    beaconEntries: template.beaconValues,
    winPoStProof: template.winningPoStProof,
    parents: parent.cids,
    parentWeight: chain.weightOf(parent),
    height: template.epoch,
    parentStateRoot: state.stateRoot,
    parentMessageReceipts: state.receiptsRoot,
    messages: txMetaCidOf(blsCids, secpCids),
    blsAggregate: { type: SignatureType.BLS, data: aggregate },
    timestamp: template.timestamp,
    blockSig: null,
    forkSignaling: 0n,
    parentBaseFee: childBaseFee(chain, parent),
  };
  const blockSig = await sign(worker, blockSigningBytes(unsigned));
  return { header: { ...unsigned, blockSig }, blsMessages: blsCids, secpkMessages: secpCids };
}
