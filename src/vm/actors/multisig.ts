/**
 * Multisig actor (builtin-actors `actors/multisig`): signers propose transactions, and a proposal
 * runs — as a send from the multisig — once enough signers approved it. The outer message succeeds
 * even when that send fails; ProposeReturn/ApproveReturn carry the inner exit code. Signer and
 * threshold changes must come from the multisig itself, i.e. through an approved proposal.
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, Hamt } from '../../ipld/index.js';
import { INIT_ACTOR_ID } from '../../state/index.js';
import { Address, addressKind, declareStruct, kinds, type StructValue } from '../../types/index.js';
import { ExitCode, exitCodeSeenByCaller } from '../exit-code.js';
import { METHOD_SEND, MultisigMethod } from '../methods.js';
import type { Mutable, Runtime, StateCodec } from '../runtime.js';
import { acceptExportedMethods, decodeParams, defineActor, extractSendResult } from './actor.js';
import { addressListKind, type CborNode } from './cbor.js';
import { ceilDiv } from './math.js';

const SIGNERS_MAX = 256;

/** builtin-actors `actors/multisig/src/state.rs` `State`; JSON names as go-state-types `builtin/v16/multisig`. */
export const multisigStateStruct = declareStruct('MultisigState', [
  { key: 'signers', json: 'Signers', kind: addressListKind },
  { key: 'numApprovalsThreshold', json: 'NumApprovalsThreshold', kind: kinds.uint64 },
  { key: 'nextTxnId', json: 'NextTxnID', kind: kinds.int64 },
  { key: 'initialBalance', json: 'InitialBalance', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'startEpoch', json: 'StartEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'unlockDuration', json: 'UnlockDuration', kind: kinds.int64, description: 'epochs' },
  // HAMT of pending transactions keyed by zigzag-varint TxnID.
  { key: 'pendingTxs', json: 'PendingTxns', kind: kinds.cid },
]);
export type MultisigState = Mutable<StructValue<typeof multisigStateStruct>>;

export const multisigStateCodec: StateCodec<MultisigState> = multisigStateStruct;

/** builtin-actors `Transaction`: a pending proposal and who approved it. */
export const transactionStruct = declareStruct('Transaction', [
  { key: 'to', json: 'To', kind: addressKind },
  { key: 'value', json: 'Value', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'method', json: 'Method', kind: kinds.uint64 },
  { key: 'params', json: 'Params', kind: kinds.bytes },
  { key: 'approved', json: 'Approved', kind: addressListKind },
]);
export type MultisigTransaction = Mutable<StructValue<typeof transactionStruct>>;

/** The multisig constructor's params (builtin-actors `ConstructorParams`). */
export const multisigConstructorParams = declareStruct('MultisigConstructorParams', [
  { key: 'signers', json: 'Signers', kind: addressListKind },
  { key: 'numApprovalsThreshold', json: 'NumApprovalsThreshold', kind: kinds.uint64 },
  { key: 'unlockDuration', json: 'UnlockDuration', kind: kinds.int64, description: 'epochs' },
  { key: 'startEpoch', json: 'StartEpoch', kind: kinds.int64, description: 'epoch' },
]);
export type MultisigConstructorParams = StructValue<typeof multisigConstructorParams>;
export const encodeMultisigConstructorParams = multisigConstructorParams.encode;

/** builtin-actors `ProposeParams`. */
export const proposeParams = declareStruct('ProposeParams', [
  { key: 'to', json: 'To', kind: addressKind },
  { key: 'value', json: 'Value', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'method', json: 'Method', kind: kinds.uint64 },
  { key: 'params', json: 'Params', kind: kinds.bytes },
]);

export function encodeProposeParams(to: Address, value: bigint, method: bigint, params: Uint8Array): Uint8Array {
  return proposeParams.encode({ to, value, method, params });
}

/** builtin-actors `ProposalHashData`: what a proposal hash is the blake2b-256 of. */
const proposalHashDataStruct = declareStruct('ProposalHashData', [
  { key: 'requester', json: 'Requester', kind: kinds.nullable(addressKind) },
  { key: 'to', json: 'To', kind: addressKind },
  { key: 'value', json: 'Value', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'method', json: 'Method', kind: kinds.uint64 },
  { key: 'params', json: 'Params', kind: kinds.bytes },
]);

/** builtin-actors `TxnIDParams` (Approve, Cancel); an empty hash skips the check. */
export const txnIdParams = declareStruct('TxnIDParams', [
  { key: 'id', json: 'ID', kind: kinds.int64 },
  { key: 'proposalHash', json: 'ProposalHash', kind: kinds.bytes },
]);

export function encodeTxnIdParams(id: bigint, proposalHash: Uint8Array): Uint8Array {
  return txnIdParams.encode({ id, proposalHash });
}

/** builtin-actors `AddSignerParams`. */
export const addSignerParams = declareStruct('AddSignerParams', [
  { key: 'signer', json: 'Signer', kind: addressKind },
  { key: 'increase', json: 'Increase', kind: kinds.bool },
]);

/** builtin-actors `RemoveSignerParams`. */
export const removeSignerParams = declareStruct('RemoveSignerParams', [
  { key: 'signer', json: 'Signer', kind: addressKind },
  { key: 'decrease', json: 'Decrease', kind: kinds.bool },
]);

/** builtin-actors `SwapSignerParams`. */
export const swapSignerParams = declareStruct('SwapSignerParams', [
  { key: 'from', json: 'From', kind: addressKind },
  { key: 'to', json: 'To', kind: addressKind },
]);

/** builtin-actors `ChangeNumApprovalsThresholdParams`. */
export const changeNumApprovalsThresholdParams = declareStruct('ChangeNumApprovalsThresholdParams', [
  { key: 'newThreshold', json: 'NewThreshold', kind: kinds.uint64 },
]);

/** builtin-actors `LockBalanceParams`. */
export const lockBalanceParams = declareStruct('LockBalanceParams', [
  { key: 'startEpoch', json: 'StartEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'unlockDuration', json: 'UnlockDuration', kind: kinds.int64, description: 'epochs' },
  { key: 'amount', json: 'Amount', kind: kinds.bigInt, description: 'attoFIL' },
]);

/** builtin-actors `ProposeReturn`. */
const proposeReturn = declareStruct('ProposeReturn', [
  { key: 'txnId', json: 'TxnID', kind: kinds.int64 },
  { key: 'applied', json: 'Applied', kind: kinds.bool },
  { key: 'code', json: 'Code', kind: kinds.int64 },
  { key: 'ret', json: 'Ret', kind: kinds.bytes },
]);

/** builtin-actors `ApproveReturn`. */
const approveReturn = declareStruct('ApproveReturn', [
  { key: 'applied', json: 'Applied', kind: kinds.bool },
  { key: 'code', json: 'Code', kind: kinds.int64 },
  { key: 'ret', json: 'Ret', kind: kinds.bytes },
]);

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

/** Loads a pending transaction, or undefined. */
export function getPendingTransaction(store: Blockstore, pendingTxs: CID, id: bigint): MultisigTransaction | undefined {
  const bytes = Hamt.load(store, pendingTxs).getBytes(txnIdKey(id));
  return bytes === undefined ? undefined : transactionStruct.decode(bytes);
}

/** The transaction ID a pending-transactions HAMT key encodes (the inverse of `txnIdKey`). */
function txnIdOfKey(key: Uint8Array): bigint {
  let zigzag = 0n;
  for (let i = 0; i < key.length; i++) zigzag |= BigInt((key[i] as number) & 0x7f) << BigInt(7 * i);
  return (zigzag >> 1n) ^ -(zigzag & 1n);
}

/** Every pending transaction with its ID, in the HAMT's order (Lotus `ForEachPendingTxn`). */
export function pendingTransactions(
  store: Blockstore,
  pendingTxs: CID,
): Array<{ id: bigint; txn: MultisigTransaction }> {
  return [...Hamt.load(store, pendingTxs).entries()].map(([key, value]) => ({
    id: txnIdOfKey(key),
    txn: transactionStruct.fromCborNode(value as CborNode),
  }));
}

/** blake2b-256 of CBOR `[Requester, To, Value, Method, Params]`: what Approve and Cancel may check. */
export function proposalHashData(txn: MultisigTransaction): Uint8Array {
  return proposalHashDataStruct.encode({ ...txn, requester: txn.approved[0] ?? null });
}

function isSigner(state: MultisigState, address: Address): boolean {
  return state.signers.some((signer) => signer.equals(address));
}

/** The part of the initial balance still locked `elapsed` epochs after the start. */
export function amountLocked(state: MultisigState, elapsed: bigint): bigint {
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
    txn.approved = [...txn.approved, caller];
    withPendingTxs(rt, current, (pending) => pending.set(txnIdKey(id), transactionStruct.toCborNode(txn)));
    return { ...current };
  });
  return executeIfApproved(rt, state, id, txn);
}

function requirePending(rt: Runtime, pending: Hamt, id: bigint, what: string): MultisigTransaction {
  const bytes = pending.getBytes(txnIdKey(id));
  if (bytes === undefined) rt.abort(ExitCode.UsrNotFound, `no such transaction ${id} for ${what}`);
  return transactionStruct.decode(bytes);
}

function readTxnIdParams(params: Uint8Array | null): { id: bigint; proposalHash: Uint8Array } {
  return decodeParams(params, txnIdParams);
}

function hashMatches(rt: Runtime, txn: MultisigTransaction, proposalHash: Uint8Array): boolean {
  if (proposalHash.length === 0) return true;
  return Buffer.from(rt.hashBlake2b(proposalHashData(txn))).equals(proposalHash);
}

function construct(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, multisigConstructorParams);
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
  const p = decodeParams(params, proposeParams);
  rt.validateImmediateCallerAcceptAny();
  const proposer = Address.newId(rt.caller);
  if (p.value < 0n) rt.abort(ExitCode.UsrIllegalArgument, `proposed value must be non-negative, was ${p.value}`);
  const { id, txn } = rt.transaction(multisigStateCodec, (state) => {
    if (!isSigner(state, proposer)) rt.abort(ExitCode.UsrForbidden, `${proposer} is not a signer`);
    const id = state.nextTxnId;
    state.nextTxnId += 1n;
    const txn: MultisigTransaction = { ...p, approved: [] };
    withPendingTxs(rt, state, (pending) => pending.set(txnIdKey(id), transactionStruct.toCborNode(txn)));
    return { id, txn };
  });
  const { applied, code, ret } = approveTransaction(rt, id, txn);
  return proposeReturn.encode({ txnId: id, applied, code: BigInt(code), ret });
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
  return approveReturn.encode({ applied: result.applied, code: BigInt(result.code), ret: result.ret });
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
      const txn: MultisigTransaction = transactionStruct.fromCborNode(value as CborNode);
      if (!txn.approved.some((approver) => approver.equals(signer))) continue;
      txn.approved = txn.approved.filter((approver) => !approver.equals(signer));
      changed.push([key, txn]);
    }
    for (const [key, txn] of changed) {
      if (txn.approved.length === 0) pending.delete(key);
      else pending.set(key, transactionStruct.toCborNode(txn));
    }
  });
}

function validateCallerIsSelf(rt: Runtime): void {
  rt.validateImmediateCallerIs(rt.receiver);
}

function addSigner(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, addSignerParams);
  validateCallerIsSelf(rt);
  const signer = Address.newId(resolveToActorId(rt, p.signer, true));
  rt.transaction(multisigStateCodec, (state) => {
    if (state.signers.length >= SIGNERS_MAX)
      rt.abort(ExitCode.UsrForbidden, `cannot add more than ${SIGNERS_MAX} signers`);
    if (isSigner(state, signer)) rt.abort(ExitCode.UsrForbidden, `${signer} is already a signer`);
    state.signers = [...state.signers, signer];
    if (p.increase) state.numApprovalsThreshold += 1n;
  });
  return null;
}

function removeSigner(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, removeSignerParams);
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
  const p = decodeParams(params, swapSignerParams);
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
  const threshold = decodeParams(params, changeNumApprovalsThresholdParams).newThreshold;
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
  const p = decodeParams(params, lockBalanceParams);
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

export const multisigActor = defineActor(
  'multisig',
  MultisigMethod,
  {
    Constructor: construct,
    Propose: propose,
    Approve: approve,
    Cancel: cancel,
    AddSigner: addSigner,
    RemoveSigner: removeSigner,
    SwapSigner: swapSigner,
    ChangeNumApprovalsThreshold: changeNumApprovalsThreshold,
    LockBalance: lockBalance,
    UniversalReceiverHook: (rt) => {
      rt.validateImmediateCallerAcceptAny();
      return null;
    },
  },
  acceptExportedMethods,
);
