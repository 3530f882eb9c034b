/**
 * Multisig methods with Lotus's parameters, shapes and permissions (filecoin-project/lotus
 * `api/api_full.go`, `api/v0api/full.go`, `node/impl/full/multisig.go`, the reads in
 * `node/impl/full/state.go`, the messages of `chain/actors/builtin/multisig/message*.go`).
 *
 * The builders (MsigCreate, MsigPropose, MsigApprove … MsigRemoveSigner; sign) build the message
 * for the multisig actor (src/vm/actors/multisig.ts). On /rpc/v1 they answer it as a
 * MessagePrototype for the caller to send; on /rpc/v0 they send it with MpoolPushMessage and
 * answer its CID, as Lotus's v0 wrapper does (`api/v0api/v1_wrapper.go`). v0 has no
 * MsigCancelTxnHash: its MsigCancel takes the hash form's eight parameters.
 *
 * The reads (MsigGetAvailableBalance, MsigGetVestingSchedule, MsigGetVested, MsigGetPending; read)
 * look at the multisig in the parent state of the tipset named, as every State method does.
 */
import type { CID } from 'multiformats/cid';
import { blake2b256 } from '../../crypto/index.js';
import { ACTOR_CODES, INIT_ACTOR_ID } from '../../state/index.js';
import {
  Address,
  AddressProtocol,
  addressKind,
  type CidJson,
  cidToLotusJson,
  declareStruct,
  kinds,
  type Message,
  type StructJson,
  type StructValue,
} from '../../types/index.js';
import { InvalidArgumentError, LedgerError } from '../../utils/errors.js';
import {
  addSignerParams,
  amountLocked,
  encodeMultisigConstructorParams,
  encodeProposeParams,
  encodeTxnIdParams,
  execParams,
  InitMethod,
  MultisigMethod,
  type MultisigState,
  multisigBalanceAndState,
  pendingTransactions,
  proposalHashData,
  removeSignerParams,
  signedChainMessage,
  swapSignerParams,
} from '../../vm/index.js';
import { bigIntResult, epochParam, tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext } from '../context.js';
import { messagePrototypeResult, prototypeOf } from '../message-prototype.js';
import type { DecodedParams, ParamDeclaration } from '../method.js';
import { addressesParam, addressParam, bigIntParam, booleanParam, bytesParam, uint64Param } from '../params.js';
import { cidSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';
import { declareMpoolChainMethod } from './mpool.js';
import { stateTreeOf } from './state.js';

const INIT_ACTOR = Address.newId(INIT_ACTOR_ID);
const INT64_MAX = (1n << 63n) - 1n;

// ---- reads ----

/** Lotus `api.MsigVesting`. */
const msigVestingStruct = declareStruct('MsigVesting', [
  { key: 'initialBalance', json: 'InitialBalance', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'startEpoch', json: 'StartEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'unlockDuration', json: 'UnlockDuration', kind: kinds.int64, description: 'epochs' },
]);

/** Lotus `api.MsigTransaction`: a pending proposal with its ID. */
const msigTransactionStruct = declareStruct('MsigTransaction', [
  { key: 'id', json: 'ID', kind: kinds.int64 },
  { key: 'to', json: 'To', kind: addressKind },
  { key: 'value', json: 'Value', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'method', json: 'Method', kind: kinds.uint64 },
  { key: 'params', json: 'Params', kind: kinds.bytes },
  { key: 'approved', json: 'Approved', kind: kinds.array(addressKind), description: 'ID addresses, proposer first' },
]);
type MsigTransaction = StructValue<typeof msigTransactionStruct>;

const msigParam = addressParam('msig', 'the multisig address');
const tsk = tipSetKeyParam('tsk', 'the tipset; null or [] for the head');

/** The multisig in the parent state of the tipset, and the tipset's epoch. */
function multisigAt(chain: ChainContext, msig: Address, key: Parameters<ChainContext['store']['tipSetOrHead']>[0]) {
  const tipSet = chain.store.tipSetOrHead(key);
  return { height: tipSet.height, ...multisigBalanceAndState(stateTreeOf(chain, tipSet.key), msig) };
}

/** Lotus `LockedBalance(epoch)`: what the vesting schedule still locks at `epoch`. */
function lockedAt(state: MultisigState, epoch: bigint): bigint {
  return amountLocked(state, epoch - state.startEpoch);
}

export const msigGetAvailableBalance = declareChainMethod({
  name: 'MsigGetAvailableBalance',
  description: "The part of a multisig's balance that can be spent at the tipset: its balance less what vesting locks.",
  permission: 'read',
  params: [msigParam, tsk],
  result: bigIntResult('attoFIL'),
  handler: ([msig, key], { chain }) => {
    const { height, balance, state } = multisigAt(chain, msig, key);
    return balance - lockedAt(state, height);
  },
});

export const msigGetVestingSchedule = declareChainMethod({
  name: 'MsigGetVestingSchedule',
  description:
    "A multisig's vesting: the initial balance, the epoch vesting starts and its duration (zeros without vesting).",
  permission: 'read',
  params: [msigParam, tsk],
  result: {
    name: 'vesting',
    description: 'Lotus MsigVesting',
    schema: msigVestingStruct.schema,
    encode: msigVestingStruct.toLotusJson,
  },
  handler: ([msig, key], { chain }) => multisigAt(chain, msig, key).state,
});

export const msigGetVested = declareChainMethod({
  name: 'MsigGetVested',
  description:
    'The amount that vested in a multisig between two tipsets (the state read at the end one); "0" when they are at the same epoch.',
  permission: 'read',
  params: [
    msigParam,
    tipSetKeyParam('start', 'the start tipset; null or [] for the head'),
    tipSetKeyParam('end', 'the end tipset; null or [] for the head'),
  ],
  result: bigIntResult('attoFIL'),
  handler: ([msig, startKey, endKey], { chain }) => {
    const start = chain.store.tipSetOrHead(startKey);
    const end = chain.store.tipSetOrHead(endKey);
    if (start.height > end.height) {
      throw new InvalidArgumentError(`start tipset ${start.height} is after end tipset ${end.height}`);
    }
    if (start.height === end.height) return 0n;
    const { state } = multisigAt(chain, msig, end.key);
    return lockedAt(state, start.height) - lockedAt(state, end.height);
  },
});

export const msigGetPending = declareChainMethod({
  name: 'MsigGetPending',
  description:
    'The transactions proposed to a multisig and not yet approved by enough signers (approved ones run and leave the list); [] when none.',
  permission: 'read',
  params: [msigParam, tsk],
  result: {
    name: 'transactions',
    description: 'Lotus MsigTransaction list',
    schema: { type: 'array', items: msigTransactionStruct.schema },
    encode: (transactions: MsigTransaction[]) => transactions.map(msigTransactionStruct.toLotusJson),
  },
  handler: ([msig, key], { chain }) => {
    const store = chain.store.blockstore;
    return pendingTransactions(store, multisigAt(chain, msig, key).state.pendingTxs).map(({ id, txn }) => ({
      id,
      ...txn,
    }));
  },
});

// ---- message builders ----

/** A message for the caller to send: nonce and gas unset (MpoolPushMessage fills them). */
function unsignedMessage(from: Address, to: Address, method: bigint, params: Uint8Array, value = 0n): Message {
  return { to, from, nonce: 0n, value, gasLimit: 0n, gasFeeCap: 0n, gasPremium: 0n, method, params };
}

/** Lotus `Propose`: a proposal to the multisig that, once approved, sends `value` to `to`, calling `method`. */
function proposeMessage(
  msig: Address,
  to: Address,
  value: bigint,
  from: Address,
  method: bigint,
  params: Uint8Array,
): Message {
  if (value < 0n) throw new InvalidArgumentError('must provide a non-negative amount for proposed send');
  return unsignedMessage(from, msig, MultisigMethod.Propose, encodeProposeParams(to, value, method, params));
}

/** What MsigApproveTxnHash and MsigCancelTxnHash check the pending transaction against. */
interface ProposalHashInput {
  readonly proposer: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly method: bigint;
  readonly params: Uint8Array;
}

/**
 * Lotus's Approve and Cancel messages (`txnParams`): the transaction ID, and the blake2b-256
 * proposal hash when the proposal is given (the actor then refuses a transaction that differs).
 * The proposer is resolved to its ID address in the head's state, as the actor records it.
 */
function approveOrCancelMessage(
  chain: ChainContext,
  method: bigint,
  msig: Address,
  txnId: bigint,
  from: Address,
  proposal?: ProposalHashInput,
): Message {
  if (txnId > INT64_MAX) throw new InvalidArgumentError(`transaction ID ${txnId} is out of range for int64`);
  let hash: Uint8Array = new Uint8Array(0);
  if (proposal !== undefined) {
    if (proposal.value < 0n)
      throw new InvalidArgumentError(`proposal value must be non-negative, was ${proposal.value}`);
    hash = blake2b256(
      proposalHashData({
        to: proposal.to,
        value: proposal.value,
        method: proposal.method,
        params: proposal.params,
        approved: [proposerId(chain, proposal.proposer)],
      }),
    );
  }
  return unsignedMessage(from, msig, method, encodeTxnIdParams(txnId, hash));
}

function proposerId(chain: ChainContext, proposer: Address): Address {
  if (proposer.protocol === AddressProtocol.ID) return proposer;
  const id = stateTreeOf(chain, chain.store.head().key).lookupId(proposer);
  if (id === undefined) throw new InvalidArgumentError(`proposer ${proposer}: actor not found`);
  return Address.newId(id);
}

// biome-ignore lint/suspicious/noExplicitAny: any parameter declaration, whatever its value and JSON types.
type AnyParams = readonly ParamDeclaration<any, any>[];

const PROTOTYPE_NOTE =
  'Returns the message as a MessagePrototype to send (MpoolPushMessage assigns its nonce and gas).';
const V0_NOTE = 'Sends the message with MpoolPushMessage and returns its CID.';

/** The same error with Lotus's v0 context (`creating prototype: …`, `pushing message: …`). */
function withContext(error: unknown, context: string): unknown {
  return error instanceof LedgerError
    ? new LedgerError(error.code, `${context}: ${error.message}`, { cause: error })
    : error;
}

/**
 * A builder's two forms: on v1 (`name`) the MessagePrototype, on v0 (`v0Name`, the same name
 * unless given; none with `v0Name: null`) the pushed message's CID.
 */
function msigBuilder<const N extends string, const D extends AnyParams, const N0 extends string = N>(spec: {
  readonly name: N;
  readonly v0Name?: N0 | null;
  readonly description: string;
  readonly params: D;
  readonly build: (params: DecodedParams<D>, chain: ChainContext) => Message;
}) {
  const v1 = declareChainMethod({
    name: spec.name,
    description: `${spec.description} ${PROTOTYPE_NOTE}`,
    permission: 'sign',
    apiVersions: [1],
    params: spec.params,
    result: messagePrototypeResult('the message to send, ValidNonce false'),
    handler: (params, { chain }) => prototypeOf(spec.build(params, chain)),
  });
  if (spec.v0Name === null) return [v1] as const;
  const v0Name = (spec.v0Name ?? spec.name) as N0;
  const v0 = declareMpoolChainMethod({
    name: v0Name,
    description: `${spec.description} ${V0_NOTE}`,
    permission: 'sign',
    apiVersions: [0],
    params: spec.params,
    result: {
      name: 'cid',
      description: 'the CID of the message sent',
      schema: cidSchema,
      encode: (cid: CID): CidJson => cidToLotusJson(cid),
    },
    handler: async (params, { chain, mpool, net }) => {
      let message: Message;
      try {
        message = spec.build(params, chain);
      } catch (error) {
        throw withContext(error, 'creating prototype');
      }
      // The nonce and gas come from the head: on a node still catching up they would be stale.
      net?.sync.requireSynced(v0Name);
      try {
        return signedChainMessage(await mpool.signer.pushMessage(message, null)).cid;
      } catch (error) {
        throw withContext(error, 'pushing message');
      }
    },
  });
  return [v1, v0] as const;
}

const fromParam = (what: string) => addressParam('src', `the sender of the ${what} message, a signer`);
const txnIdParam = uint64Param('txnId', 'the pending transaction ID');
const proposerParam = addressParam('proposer', 'the signer that proposed the transaction');
const proposalParams = [
  addressParam('to', 'the recipient of the proposed transaction'),
  bigIntParam('value', 'attoFIL the proposed transaction sends'),
] as const;
const proposedMethodParams = [
  uint64Param('method', 'the method the proposed transaction calls'),
  bytesParam('params', 'its CBOR parameters, base64; null for none'),
] as const;

const msigCreate = msigBuilder({
  name: 'MsigCreate',
  description:
    'Creates a multisig through the init actor (Exec) with `value` attoFIL: `threshold` of the signers must approve (0: all of them), and the balance vests over `unlockDuration` epochs (0: no vesting). The gas price parameter is ignored, as in Lotus.',
  params: [
    uint64Param('threshold', 'approvals required; 0 for every signer'),
    addressesParam('signers', 'the signers'),
    epochParam('unlockDuration', 'epochs over which the balance vests; 0 for none'),
    bigIntParam('value', 'attoFIL to put in the multisig'),
    fromParam('create'),
    bigIntParam('gasPrice', 'ignored'),
  ],
  build: ([threshold, signers, unlockDuration, value, from]) => {
    if (BigInt(signers.length) < threshold) {
      throw new InvalidArgumentError('cannot require signing of more addresses than provided for multisig');
    }
    const constructorParams = encodeMultisigConstructorParams({
      signers,
      numApprovalsThreshold: threshold === 0n ? BigInt(signers.length) : threshold,
      unlockDuration,
      startEpoch: 0n,
    });
    const params = execParams.encode({ code: ACTOR_CODES.multisig, constructorParams });
    return unsignedMessage(from, INIT_ACTOR, InitMethod.Exec, params, value);
  },
});

const msigPropose = msigBuilder({
  name: 'MsigPropose',
  description:
    'Proposes a transaction from a multisig: send `value` to `to` calling `method` with `params`. It runs as soon as enough signers approved it (the proposer approves by proposing).',
  params: [msigParam, ...proposalParams, fromParam('propose'), ...proposedMethodParams],
  build: ([msig, to, value, from, method, params]) => proposeMessage(msig, to, value, from, method, params),
});

const msigApprove = msigBuilder({
  name: 'MsigApprove',
  description: 'Approves a pending multisig transaction by its ID, whatever it is.',
  params: [msigParam, txnIdParam, fromParam('approve')],
  build: ([msig, txnId, from], chain) => approveOrCancelMessage(chain, MultisigMethod.Approve, msig, txnId, from),
});

const msigApproveTxnHash = msigBuilder({
  name: 'MsigApproveTxnHash',
  description:
    'Approves a pending multisig transaction by its ID only if it is the transaction described (proposer, recipient, value, method, params): the actor compares the proposal hash.',
  params: [msigParam, txnIdParam, proposerParam, ...proposalParams, fromParam('approve'), ...proposedMethodParams],
  build: ([msig, txnId, proposer, to, value, from, method, params], chain) =>
    approveOrCancelMessage(chain, MultisigMethod.Approve, msig, txnId, from, { proposer, to, value, method, params }),
});

const msigCancel = msigBuilder({
  name: 'MsigCancel',
  v0Name: null,
  description: 'Cancels a pending multisig transaction by its ID; only its proposer may.',
  params: [msigParam, txnIdParam, fromParam('cancel')],
  build: ([msig, txnId, from], chain) => approveOrCancelMessage(chain, MultisigMethod.Cancel, msig, txnId, from),
});

const msigCancelTxnHash = msigBuilder({
  name: 'MsigCancelTxnHash',
  v0Name: 'MsigCancel',
  description:
    'Cancels a pending multisig transaction by its ID only if it is the transaction described (recipient, value, method, params; the sender is its proposer).',
  params: [msigParam, txnIdParam, ...proposalParams, fromParam('cancel'), ...proposedMethodParams],
  build: ([msig, txnId, to, value, from, method, params], chain) =>
    approveOrCancelMessage(chain, MultisigMethod.Cancel, msig, txnId, from, {
      proposer: from,
      to,
      value,
      method,
      params,
    }),
});

/**
 * The three builders of a change to the multisig itself (Lotus's MsigAdd* and MsigSwap*): a
 * proposal that the multisig calls `method` on itself with the change's parameters, and its
 * approval and cancellation checked against that proposal, as Lotus builds them from MsigPropose,
 * MsigApproveTxnHash and MsigCancelTxnHash.
 */
function selfChangeBuilders<
  const P extends string,
  const A extends string,
  const C extends string,
  const D extends AnyParams,
>(spec: {
  readonly names: readonly [propose: P, approve: A, cancel: C];
  /** What the change does, for the descriptions ("adding a signer"). */
  readonly what: string;
  readonly method: bigint;
  readonly change: D;
  readonly encode: (change: DecodedParams<D>) => Uint8Array;
}) {
  const [propose, approve, cancel] = spec.names;
  const proposal = (msig: Address, proposer: Address, change: unknown[]): ProposalHashInput => ({
    proposer,
    to: msig,
    value: 0n,
    method: spec.method,
    params: spec.encode(change as DecodedParams<D>),
  });
  return [
    ...msigBuilder({
      name: propose,
      description: `Proposes ${spec.what} (a transaction of the multisig to itself).`,
      params: [msigParam, fromParam('propose'), ...spec.change],
      build: ([msig, from, ...change]) => {
        const { to, value, method, params } = proposal(msig, from, change);
        return proposeMessage(msig, to, value, from, method, params);
      },
    }),
    ...msigBuilder({
      name: approve,
      description: `Approves a pending proposal of ${spec.what}, checked against its proposer and parameters.`,
      params: [msigParam, fromParam('approve'), txnIdParam, proposerParam, ...spec.change],
      build: ([msig, from, txnId, proposer, ...change], chain) =>
        approveOrCancelMessage(chain, MultisigMethod.Approve, msig, txnId, from, proposal(msig, proposer, change)),
    }),
    ...msigBuilder({
      name: cancel,
      description: `Cancels a pending proposal of ${spec.what} by the sender, checked against its parameters.`,
      params: [msigParam, fromParam('cancel'), txnIdParam, ...spec.change],
      build: ([msig, from, txnId, ...change], chain) =>
        approveOrCancelMessage(chain, MultisigMethod.Cancel, msig, txnId, from, proposal(msig, from, change)),
    }),
  ] as const;
}

const msigAddSigner = selfChangeBuilders({
  names: ['MsigAddPropose', 'MsigAddApprove', 'MsigAddCancel'],
  what: 'adding a signer (AddSigner)',
  method: MultisigMethod.AddSigner,
  change: [
    addressParam('newSigner', 'the signer to add'),
    booleanParam('increase', 'also raise the approval threshold by one'),
  ],
  encode: ([signer, increase]) => addSignerParams.encode({ signer, increase }),
});

const msigSwapSigner = selfChangeBuilders({
  names: ['MsigSwapPropose', 'MsigSwapApprove', 'MsigSwapCancel'],
  what: 'replacing a signer with another (SwapSigner)',
  method: MultisigMethod.SwapSigner,
  change: [addressParam('oldSigner', 'the signer to replace'), addressParam('newSigner', 'the signer replacing it')],
  encode: ([from, to]) => swapSignerParams.encode({ from, to }),
});

const msigRemoveSigner = msigBuilder({
  name: 'MsigRemoveSigner',
  description:
    'Proposes removing a signer from a multisig (RemoveSigner), lowering the threshold by one with `decrease`.',
  params: [
    msigParam,
    addressParam('proposer', 'the sender of the propose message, a signer'),
    addressParam('toRemove', 'the signer to remove'),
    booleanParam('decrease', 'also lower the approval threshold by one'),
  ],
  build: ([msig, from, signer, decrease]) =>
    proposeMessage(msig, msig, 0n, from, MultisigMethod.RemoveSigner, removeSignerParams.encode({ signer, decrease })),
});

export const msigMethods = [
  msigGetAvailableBalance,
  msigGetVestingSchedule,
  msigGetVested,
  msigGetPending,
  ...msigCreate,
  ...msigPropose,
  ...msigApprove,
  ...msigApproveTxnHash,
  ...msigCancel,
  ...msigCancelTxnHash,
  ...msigAddSigner,
  ...msigSwapSigner,
  ...msigRemoveSigner,
];

export type MsigVesting = StructJson<typeof msigVestingStruct>;
