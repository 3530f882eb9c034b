/**
 * Multisig actor (builtin-actors `actors/multisig`): signers propose transactions, and a proposal
 * runs — as a send from the multisig — once enough signers approved it. The outer message succeeds
 * even when that send fails; ProposeReturn/ApproveReturn carry the inner exit code. Signer and
 * threshold changes must come from the multisig itself, i.e. through an approved proposal.
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, Hamt } from '../../ipld/index.js';
import { INIT_ACTOR_ID } from '../../state/index.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { Address, encodeCbor } from '../../types/index.js';
import { ExitCode, exitCodeSeenByCaller } from '../exit-code.js';
import { METHOD_CONSTRUCTOR, METHOD_SEND, MultisigMethod } from '../methods.js';
import type { Runtime, StateCodec } from '../runtime.js';
import {
  type ActorImplementation,
  acceptExportedMethods,
  decodeParams,
  encodeReturn,
  extractSendResult,
  type MethodHandler,
} from './actor.js';
import {
  bigInt,
  type CborNode,
  readAddress,
  readArray,
  readBigInt,
  readBool,
  readBytes,
  readCid,
  readInt64,
  readTuple,
  readUint64,
} from './cbor.js';
import { ceilDiv } from './math.js';

const SIGNERS_MAX = 256;

export interface MultisigState {
  signers: Address[];
  numApprovalsThreshold: bigint;
  nextTxnId: bigint;
  initialBalance: bigint;
  startEpoch: bigint;
  unlockDuration: bigint;
  /** HAMT of pending transactions keyed by zigzag-varint TxnID. */
  pendingTxs: CID;
}

export interface MultisigTransaction {
  readonly to: Address;
  readonly value: bigint;
  readonly method: bigint;
  readonly params: Uint8Array;
  approved: Address[];
}

export const multisigStateCodec: StateCodec<MultisigState> = {
  decode(bytes) {
    const p = 'MultisigState';
    const f = readTuple(decodeChainCbor(bytes, p), p, 7);
    return {
      signers: readArray(f[0], `${p}.Signers`, readAddress),
      numApprovalsThreshold: readUint64(f[1], `${p}.NumApprovalsThreshold`),
      nextTxnId: readInt64(f[2], `${p}.NextTxnID`),
      initialBalance: readBigInt(f[3], `${p}.InitialBalance`),
      startEpoch: readInt64(f[4], `${p}.StartEpoch`),
      unlockDuration: readInt64(f[5], `${p}.UnlockDuration`),
      pendingTxs: readCid(f[6], `${p}.PendingTxns`),
    };
  },
  encode: (s) =>
    encodeCbor([
      s.signers.map((a) => a.bytes),
      s.numApprovalsThreshold,
      s.nextTxnId,
      bigInt(s.initialBalance),
      s.startEpoch,
      s.unlockDuration,
      s.pendingTxs,
    ]),
};

/** The multisig constructor's params, `[Signers, NumApprovalsThreshold, UnlockDuration, StartEpoch]`. */
export interface MultisigConstructorParams {
  readonly signers: readonly Address[];
  readonly numApprovalsThreshold: bigint;
  readonly unlockDuration: bigint;
  readonly startEpoch: bigint;
}

export function encodeMultisigConstructorParams(params: MultisigConstructorParams): Uint8Array {
  return encodeCbor([
    params.signers.map((a) => a.bytes),
    params.numApprovalsThreshold,
    params.unlockDuration,
    params.startEpoch,
  ]);
}

/** builtin-actors `ProposeParams`: `[To, Value, Method, Params]`. */
export function encodeProposeParams(to: Address, value: bigint, method: bigint, params: Uint8Array): Uint8Array {
  return encodeCbor([to.bytes, bigInt(value), method, params]);
}

/** builtin-actors `TxnIDParams` (Approve, Cancel): `[ID, ProposalHash]`; an empty hash skips the check. */
export function encodeTxnIdParams(id: bigint, proposalHash: Uint8Array): Uint8Array {
  return encodeCbor([id, proposalHash]);
}

/** The HAMT key of a transaction ID: its zigzag varint (builtin-actors `MapKey for i64`). */
function txnIdKey(id: bigint): Uint8Array {
  let zigzag = BigInt.asUintN(64, (id << 1n) ^ (id >> 63n));
  const bytes: number[] = [];
  while (zigzag >= 0x80n) {
    bytes.push(Number(zigzag & 0x7fn) | 0x80);
    zigzag >>= 7n;
  }
  bytes.push(Number(zigzag));
  return Uint8Array.from(bytes);
}

function transactionToCborNode(txn: MultisigTransaction): CborNode[] {
  return [txn.to.bytes, bigInt(txn.value), txn.method, txn.params, txn.approved.map((a) => a.bytes)];
}

function readTransaction(node: CborNode, path: string): MultisigTransaction {
  const [to, value, method, params, approved] = readTuple(node, path, 5);
  return {
    to: readAddress(to, `${path}.To`),
    value: readBigInt(value, `${path}.Value`),
    method: readUint64(method, `${path}.Method`),
    params: readBytes(params, `${path}.Params`),
    approved: readArray(approved, `${path}.Approved`, readAddress),
  };
}

/** Loads a pending transaction, or undefined. */
export function getPendingTransaction(store: Blockstore, pendingTxs: CID, id: bigint): MultisigTransaction | undefined {
  const bytes = Hamt.load(store, pendingTxs).getBytes(txnIdKey(id));
  return bytes === undefined ? undefined : readTransaction(decodeChainCbor(bytes, 'Transaction'), 'Transaction');
}

/** blake2b-256 of CBOR `[Requester, To, Value, Method, Params]`: what Approve and Cancel may check. */
export function proposalHashData(txn: MultisigTransaction): Uint8Array {
  return encodeCbor([txn.approved[0]?.bytes ?? null, txn.to.bytes, bigInt(txn.value), txn.method, txn.params]);
}

function isSigner(state: MultisigState, address: Address): boolean {
  return state.signers.some((signer) => signer.equals(address));
}

/** The part of the initial balance still locked `elapsed` epochs after the start. */
function amountLocked(state: MultisigState, elapsed: bigint): bigint {
  if (elapsed >= state.unlockDuration) return 0n;
  if (elapsed <= 0n) return state.initialBalance;
  return ceilDiv(state.initialBalance * (state.unlockDuration - elapsed), state.unlockDuration);
}

function checkAvailable(rt: Runtime, state: MultisigState, amount: bigint): void {
  if (amount < 0n) rt.abort(ExitCode.UsrIllegalArgument, `amount to spend ${amount} less than zero`);
  const balance = rt.currentBalance();
  if (balance < amount) {
    rt.abort(ExitCode.UsrInsufficientFunds, `current balance ${balance} less than amount to spend ${amount}`);
  }
  if (amount === 0n) return;
  const locked = amountLocked(state, rt.epoch - state.startEpoch);
  if (balance - amount < locked) {
    rt.abort(
      ExitCode.UsrInsufficientFunds,
      `actor balance ${balance - amount} if spent ${amount} would be less than required locked amount ${locked}`,
    );
  }
}

/** builtin-actors `resolve_to_actor_id`: resolves an address, creating its account first if needed. */
function resolveToActorId(rt: Runtime, address: Address, checkExistence: boolean): bigint {
  let id = rt.resolveAddress(address);
  if (id === undefined) {
    extractSendResult(rt.send(address, METHOD_SEND, null, 0n), `failed to send zero balance to address ${address}`);
    id = rt.resolveAddress(address);
  }
  if (id === undefined) rt.abort(ExitCode.UsrIllegalArgument, `failed to resolve or initialize address ${address}`);
  if (checkExistence && rt.getActorType(id) === undefined)
    rt.abort(ExitCode.UsrNotFound, `no code for address ${address}`);
  return id;
}

function withPendingTxs<R>(rt: Runtime, state: MultisigState, fn: (pending: Hamt) => R): R {
  const pending = Hamt.load(rt.store, state.pendingTxs);
  const result = fn(pending);
  state.pendingTxs = pending.flush();
  return result;
}

/** Runs the transaction if it has enough approvals: `[applied, exit code, return]`. */
function executeIfApproved(
  rt: Runtime,
  state: MultisigState,
  id: bigint,
  txn: MultisigTransaction,
): { applied: boolean; code: ExitCode; ret: Uint8Array } {
  if (BigInt(txn.approved.length) < state.numApprovalsThreshold)
    return { applied: false, code: ExitCode.Ok, ret: new Uint8Array(0) };
  checkAvailable(rt, state, txn.value);
  rt.transaction(multisigStateCodec, (current) =>
    withPendingTxs(rt, current, (pending) => pending.delete(txnIdKey(id))),
  );
  const result = rt.send(txn.to, txn.method, txn.params.length === 0 ? null : txn.params, txn.value);
  const code = result.exitCode === ExitCode.Ok ? ExitCode.Ok : exitCodeSeenByCaller(result.exitCode);
  return { applied: true, code, ret: result.returnData ?? new Uint8Array(0) };
}

function approveTransaction(
  rt: Runtime,
  id: bigint,
  txn: MultisigTransaction,
): { applied: boolean; code: ExitCode; ret: Uint8Array } {
  const caller = Address.newId(rt.caller);
  if (txn.approved.some((approver) => approver.equals(caller))) {
    rt.abort(ExitCode.UsrForbidden, `${caller} already approved this message`);
  }
  const state = rt.transaction(multisigStateCodec, (current) => {
    txn.approved.push(caller);
    withPendingTxs(rt, current, (pending) => pending.set(txnIdKey(id), transactionToCborNode(txn)));
    return { ...current };
  });
  return executeIfApproved(rt, state, id, txn);
}

function requirePending(rt: Runtime, pending: Hamt, id: bigint, what: string): MultisigTransaction {
  const bytes = pending.getBytes(txnIdKey(id));
  if (bytes === undefined) rt.abort(ExitCode.UsrNotFound, `no such transaction ${id} for ${what}`);
  return readTransaction(decodeChainCbor(bytes, 'Transaction'), 'Transaction');
}

function readTxnIdParams(params: Uint8Array | null): { id: bigint; proposalHash: Uint8Array } {
  return decodeParams(params, 'TxnIDParams', (node, path) => {
    const [id, hash] = readTuple(node, path, 2);
    return { id: readInt64(id, `${path}.ID`), proposalHash: readBytes(hash, `${path}.ProposalHash`) };
  });
}

function hashMatches(rt: Runtime, txn: MultisigTransaction, proposalHash: Uint8Array): boolean {
  if (proposalHash.length === 0) return true;
  return Buffer.from(rt.hashBlake2b(proposalHashData(txn))).equals(proposalHash);
}

function construct(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, 'MultisigConstructorParams', (node, path) => {
    const [signers, threshold, unlockDuration, startEpoch] = readTuple(node, path, 4);
    return {
      signers: readArray(signers, `${path}.Signers`, readAddress),
      numApprovalsThreshold: readUint64(threshold, `${path}.NumApprovalsThreshold`),
      unlockDuration: readInt64(unlockDuration, `${path}.UnlockDuration`),
      startEpoch: readInt64(startEpoch, `${path}.StartEpoch`),
    };
  });
  rt.validateImmediateCallerIs(INIT_ACTOR_ID);
  if (p.signers.length === 0) rt.abort(ExitCode.UsrIllegalArgument, 'Must have at least one signer');
  if (p.signers.length > SIGNERS_MAX)
    rt.abort(ExitCode.UsrIllegalArgument, `cannot add more than ${SIGNERS_MAX} signers`);
  const resolved: Address[] = [];
  for (const signer of p.signers) {
    const id = Address.newId(resolveToActorId(rt, signer, true));
    if (resolved.some((known) => known.equals(id)))
      rt.abort(ExitCode.UsrIllegalArgument, `duplicate signer not allowed: ${signer}`);
    resolved.push(id);
  }
  if (p.numApprovalsThreshold > BigInt(p.signers.length)) {
    rt.abort(ExitCode.UsrIllegalArgument, 'must not require more approvals than signers');
  }
  if (p.numApprovalsThreshold < 1n) rt.abort(ExitCode.UsrIllegalArgument, 'must require at least one approval');
  if (p.unlockDuration < 0n) rt.abort(ExitCode.UsrIllegalArgument, 'negative unlock duration disallowed');
  const locked = p.unlockDuration !== 0n;
  rt.createState(multisigStateCodec, {
    signers: resolved,
    numApprovalsThreshold: p.numApprovalsThreshold,
    nextTxnId: 0n,
    initialBalance: locked ? rt.valueReceived : 0n,
    startEpoch: locked ? p.startEpoch : 0n,
    unlockDuration: locked ? p.unlockDuration : 0n,
    pendingTxs: Hamt.create(rt.store).flush(),
  });
  return null;
}

function propose(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const p = decodeParams(params, 'ProposeParams', (node, path) => {
    const [to, value, method, params] = readTuple(node, path, 4);
    return {
      to: readAddress(to, `${path}.To`),
      value: readBigInt(value, `${path}.Value`),
      method: readUint64(method, `${path}.Method`),
      params: readBytes(params, `${path}.Params`),
    };
  });
  rt.validateImmediateCallerAcceptAny();
  const proposer = Address.newId(rt.caller);
  if (p.value < 0n) rt.abort(ExitCode.UsrIllegalArgument, `proposed value must be non-negative, was ${p.value}`);
  const { id, txn } = rt.transaction(multisigStateCodec, (state) => {
    if (!isSigner(state, proposer)) rt.abort(ExitCode.UsrForbidden, `${proposer} is not a signer`);
    const id = state.nextTxnId;
    state.nextTxnId += 1n;
    const txn: MultisigTransaction = { ...p, approved: [] };
    withPendingTxs(rt, state, (pending) => pending.set(txnIdKey(id), transactionToCborNode(txn)));
    return { id, txn };
  });
  const { applied, code, ret } = approveTransaction(rt, id, txn);
  return encodeReturn([id, applied, code, ret]);
}

function approve(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const { id, proposalHash } = readTxnIdParams(params);
  rt.validateImmediateCallerAcceptAny();
  const approver = Address.newId(rt.caller);
  const { state, txn } = rt.transaction(multisigStateCodec, (current) => {
    if (!isSigner(current, approver)) rt.abort(ExitCode.UsrForbidden, `${approver} is not a signer`);
    const txn = requirePending(rt, Hamt.load(rt.store, current.pendingTxs), id, 'approval');
    if (!hashMatches(rt, txn, proposalHash)) {
      rt.abort(ExitCode.UsrIllegalArgument, 'hash does not match proposal params (ensure requester is an ID address)');
    }
    return { state: { ...current }, txn };
  });
  let result = executeIfApproved(rt, state, id, txn);
  if (!result.applied) result = approveTransaction(rt, id, txn);
  return encodeReturn([result.applied, result.code, result.ret]);
}

function cancel(rt: Runtime, params: Uint8Array | null): null {
  const { id, proposalHash } = readTxnIdParams(params);
  rt.validateImmediateCallerAcceptAny();
  const caller = Address.newId(rt.caller);
  rt.transaction(multisigStateCodec, (state) => {
    if (!isSigner(state, caller)) rt.abort(ExitCode.UsrForbidden, `${caller} is not a signer`);
    withPendingTxs(rt, state, (pending) => {
      const txn = requirePending(rt, pending, id, 'cancel');
      pending.delete(txnIdKey(id));
      if (!txn.approved[0]?.equals(caller))
        rt.abort(ExitCode.UsrForbidden, 'Cannot cancel another signers transaction');
      if (!hashMatches(rt, txn, proposalHash))
        rt.abort(ExitCode.UsrIllegalState, 'hash does not match proposal params');
    });
  });
  return null;
}

/** Removes `signer`'s approvals from pending transactions, dropping those left with none. */
function purgeApprovals(rt: Runtime, state: MultisigState, signer: Address): void {
  withPendingTxs(rt, state, (pending) => {
    const changed: Array<[Uint8Array, MultisigTransaction]> = [];
    for (const [key, value] of pending.entries()) {
      const txn = readTransaction(value as CborNode, 'Transaction');
      if (!txn.approved.some((approver) => approver.equals(signer))) continue;
      txn.approved = txn.approved.filter((approver) => !approver.equals(signer));
      changed.push([key, txn]);
    }
    for (const [key, txn] of changed) {
      if (txn.approved.length === 0) pending.delete(key);
      else pending.set(key, transactionToCborNode(txn));
    }
  });
}

function validateCallerIsSelf(rt: Runtime): void {
  rt.validateImmediateCallerIs(rt.receiver);
}

function addSigner(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, 'AddSignerParams', (node, path) => {
    const [signer, increase] = readTuple(node, path, 2);
    return { signer: readAddress(signer, `${path}.Signer`), increase: readBool(increase, `${path}.Increase`) };
  });
  validateCallerIsSelf(rt);
  const signer = Address.newId(resolveToActorId(rt, p.signer, true));
  rt.transaction(multisigStateCodec, (state) => {
    if (state.signers.length >= SIGNERS_MAX)
      rt.abort(ExitCode.UsrForbidden, `cannot add more than ${SIGNERS_MAX} signers`);
    if (isSigner(state, signer)) rt.abort(ExitCode.UsrForbidden, `${signer} is already a signer`);
    state.signers.push(signer);
    if (p.increase) state.numApprovalsThreshold += 1n;
  });
  return null;
}

function removeSigner(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, 'RemoveSignerParams', (node, path) => {
    const [signer, decrease] = readTuple(node, path, 2);
    return { signer: readAddress(signer, `${path}.Signer`), decrease: readBool(decrease, `${path}.Decrease`) };
  });
  validateCallerIsSelf(rt);
  const signer = Address.newId(resolveToActorId(rt, p.signer, false));
  rt.transaction(multisigStateCodec, (state) => {
    if (!isSigner(state, signer)) rt.abort(ExitCode.UsrForbidden, `${signer} is not a signer`);
    if (state.signers.length === 1) rt.abort(ExitCode.UsrForbidden, 'Cannot remove only signer');
    if (!p.decrease && BigInt(state.signers.length - 1) < state.numApprovalsThreshold) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `can't reduce signers to ${state.signers.length - 1} below threshold ${state.numApprovalsThreshold} with decrease=false`,
      );
    }
    if (p.decrease) {
      if (state.numApprovalsThreshold < 2n) {
        rt.abort(ExitCode.UsrIllegalArgument, `can't decrease approvals from ${state.numApprovalsThreshold}`);
      }
      state.numApprovalsThreshold -= 1n;
    }
    purgeApprovals(rt, state, signer);
    state.signers = state.signers.filter((s) => !s.equals(signer));
  });
  return null;
}

function swapSigner(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, 'SwapSignerParams', (node, path) => {
    const [from, to] = readTuple(node, path, 2);
    return { from: readAddress(from, `${path}.From`), to: readAddress(to, `${path}.To`) };
  });
  validateCallerIsSelf(rt);
  const from = Address.newId(resolveToActorId(rt, p.from, false));
  const to = Address.newId(resolveToActorId(rt, p.to, true));
  rt.transaction(multisigStateCodec, (state) => {
    if (!isSigner(state, from)) rt.abort(ExitCode.UsrForbidden, `${from} is not a signer`);
    if (isSigner(state, to)) rt.abort(ExitCode.UsrIllegalArgument, `${to} is already a signer`);
    state.signers = [...state.signers.filter((s) => !s.equals(from)), to];
    purgeApprovals(rt, state, from);
  });
  return null;
}

function changeNumApprovalsThreshold(rt: Runtime, params: Uint8Array | null): null {
  const threshold = decodeParams(params, 'ChangeNumApprovalsThresholdParams', (node, path) =>
    readUint64(readTuple(node, path, 1)[0], `${path}.NewThreshold`),
  );
  validateCallerIsSelf(rt);
  rt.transaction(multisigStateCodec, (state) => {
    if (threshold === 0n || threshold > BigInt(state.signers.length)) {
      rt.abort(ExitCode.UsrIllegalArgument, 'New threshold value not supported');
    }
    state.numApprovalsThreshold = threshold;
  });
  return null;
}

function lockBalance(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, 'LockBalanceParams', (node, path) => {
    const [start, duration, amount] = readTuple(node, path, 3);
    return {
      startEpoch: readInt64(start, `${path}.StartEpoch`),
      unlockDuration: readInt64(duration, `${path}.UnlockDuration`),
      amount: readBigInt(amount, `${path}.Amount`),
    };
  });
  validateCallerIsSelf(rt);
  if (p.unlockDuration <= 0n) rt.abort(ExitCode.UsrIllegalArgument, 'unlock duration must be positive');
  if (p.amount < 0n) rt.abort(ExitCode.UsrIllegalArgument, 'amount to lock must be positive');
  rt.transaction(multisigStateCodec, (state) => {
    if (state.unlockDuration !== 0n) rt.abort(ExitCode.UsrForbidden, 'modification of unlock disallowed');
    state.startEpoch = p.startEpoch;
    state.unlockDuration = p.unlockDuration;
    state.initialBalance = p.amount;
  });
  return null;
}

export const multisigActor: ActorImplementation = {
  type: 'multisig',
  methods: new Map<bigint, MethodHandler>([
    [METHOD_CONSTRUCTOR, construct],
    [MultisigMethod.Propose, propose],
    [MultisigMethod.Approve, approve],
    [MultisigMethod.Cancel, cancel],
    [MultisigMethod.AddSigner, addSigner],
    [MultisigMethod.RemoveSigner, removeSigner],
    [MultisigMethod.SwapSigner, swapSigner],
    [MultisigMethod.ChangeNumApprovalsThreshold, changeNumApprovalsThreshold],
    [MultisigMethod.LockBalance, lockBalance],
    [
      MultisigMethod.UniversalReceiverHook,
      (rt) => {
        rt.validateImmediateCallerAcceptAny();
        return null;
      },
    ],
  ]),
  fallback: acceptExportedMethods,
};
