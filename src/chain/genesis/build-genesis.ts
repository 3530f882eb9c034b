/**
 * Builds the genesis state and block from a template (filecoin-project/lotus
 * `chain/gen/genesis/genesis.go` and `miners.go`). Singleton actors are constructed by their
 * constructors, run as implicit messages from the system actor; accounts are created the way a
 * first transfer creates them (IDs from f0100 in template order, multisig signers included; an
 * f410 owner gets an EthAccount holding its delegated address, as Lotus places its genesis
 * EthAccount in `chain/gen/genesis/genesis_eth.go`),
 * multisigs through Init.Exec after them, and miners (from f01000) through Power.CreateMiner with
 * their pre-sealed sectors activated by the miner's InternalSectorSetupForPreseal. Genesis is where
 * tokens come from: each balance is minted into the actor that holds it, and the remainder account
 * (f090) gets whatever makes the total exactly the network's supply.
 *
 * Unlike Lotus, whose genesis ticket is 32 random bytes, the ticket here is derived from the
 * genesis state root and timestamp (see `genesisTicket`), so one template always yields one
 * genesis CID on every machine.
 */
import type { CID } from 'multiformats/cid';
import { blake2b256 } from '../../crypto/index.js';
import { type Blockstore, buildAmt, getBlock, Hamt, putCbor } from '../../ipld/index.js';
import type { NetworkParams } from '../../params/index.js';
import {
  ACTOR_CODES,
  type ActorName,
  BURNT_FUNDS_ACTOR_ID,
  BufferedBlockstore,
  CRON_ACTOR_ID,
  decodeInitState,
  EAM_ACTOR_ID,
  EMPTY_STATE_HEAD,
  encodeInitState,
  INIT_ACTOR_ID,
  putCborBytes,
  RESERVE_ACTOR_ID,
  REWARD_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  StateTree,
  SYSTEM_ACTOR_ID,
} from '../../state/index.js';
import {
  Address,
  type BlockHeader,
  blockCid,
  decodeCbor,
  encodeBlockHeader,
  encodeCbor,
  isEthAddress,
  type Message,
  txMetaToCborNode,
} from '../../types/index.js';
import { concatBytes } from '../../utils/bytes.js';
import {
  accountStateCodec,
  activateAllUnproven,
  createMinerDeposit,
  EPOCHS_IN_DAY,
  encodeCreateMinerParams,
  encodeCronConstructorParams,
  encodeMultisigConstructorParams,
  InitMethod,
  initialPledgeForPower,
  internalSectorSetupForPresealParams,
  METHOD_CONSTRUCTOR,
  METHOD_SEND,
  MinerMethod,
  minerStateCodec,
  multisigStateCodec,
  type PledgeInputs,
  PowerMethod,
  powerStateCodec,
  preCommitDepositForPower,
  preCommitSectorBatch2Params,
  qaPowerMax,
  rewardStateCodec,
  type StateCodec,
  sectorSizeOfSealProof,
  updateClaimedPowerParams,
  Vm,
} from '../../vm/index.js';
import { GenesisError } from './errors.js';
import { FILECOIN_GENESIS_BLOCK_BYTES, FILECOIN_GENESIS_CID } from './filecoin-genesis-block.js';
import type { GenesisActor, GenesisMiner, GenesisMultisig, GenesisTemplate } from './template.js';

/** Miners get IDs from here (Lotus MinerStart); accounts and multisigs below it. */
export const MINER_START_ID = 1000n;
/** Lotus runs genesis messages with this gas limit. */
const GENESIS_GAS_LIMIT = 1_000_000_000_000_000n;
/** Lotus's pre-seal expiration: MAX_SECTOR_EXPIRATION_EXTENSION in whole days (chain/gen/genesis/miners.go). */
const MAX_PROVING_PERIODS = 1278n;
const TICKET_DOMAIN = new TextEncoder().encode('ledger-node genesis ticket');

export interface Genesis {
  readonly header: BlockHeader;
  readonly cid: CID;
  readonly stateRoot: CID;
}

/**
 * The genesis ticket: blake2b-256("ledger-node genesis ticket" ‖ state root CID bytes ‖
 * u64be(timestamp)). The state root commits to the network name and every actor.
 */
export function genesisTicket(stateRoot: CID, timestamp: bigint): Uint8Array {
  const time = new Uint8Array(8);
  new DataView(time.buffer).setBigUint64(0, timestamp);
  return blake2b256(concatBytes(TICKET_DOMAIN, stateRoot.bytes, time));
}

/** Builds the genesis into `store` (one `putMany` of every block it needs) and returns its header. */
export function buildGenesis(store: Blockstore, template: GenesisTemplate, params: NetworkParams): Genesis {
  const buffer = new BufferedBlockstore(store);
  const builder = new GenesisBuilder(buffer, template, params);
  const stateRoot = builder.build();
  const emptyAmt = buildAmt(buffer, [], { version: 'v0' });
  const messages = putCbor(buffer, txMetaToCborNode({ blsMessages: emptyAmt, secpkMessages: emptyAmt }));
  buffer.put(FILECOIN_GENESIS_CID, FILECOIN_GENESIS_BLOCK_BYTES);
  const header: BlockHeader = {
    miner: Address.newId(SYSTEM_ACTOR_ID),
    ticket: { vrfProof: genesisTicket(stateRoot, template.timestamp) },
    electionProof: { winCount: 0n, vrfProof: new Uint8Array(0) },
    beaconEntries: [{ round: 0n, data: new Uint8Array(32) }],
    winPoStProof: [],
    parents: [FILECOIN_GENESIS_CID],
    parentWeight: 0n,
    height: 0n,
    parentStateRoot: stateRoot,
    parentMessageReceipts: emptyAmt,
    messages,
    blsAggregate: null,
    timestamp: template.timestamp,
    blockSig: null,
    forkSignaling: 0n,
    parentBaseFee: params.initialBaseFee,
  };
  const headerBytes = encodeBlockHeader(header);
  const cid = blockCid(header);
  buffer.put(cid, headerBytes);
  buffer.flush([cid]);
  return { header, cid, stateRoot };
}

class GenesisBuilder {
  readonly #tree: StateTree;
  readonly #vm: Vm;
  readonly #template: GenesisTemplate;
  readonly #params: NetworkParams;
  /** Genesis messages are numbered so each new actor's f2 address is distinct. */
  #messageNonce = 0n;

  constructor(store: Blockstore, template: GenesisTemplate, params: NetworkParams) {
    this.#template = template;
    this.#params = params;
    this.#tree = StateTree.create(store);
    // Lotus's genesis VM: epoch 0, no base fee, a circulating supply of 0 for pledge calculations.
    this.#vm = new Vm(this.#tree, {
      networkParams: params,
      epoch: 0n,
      timestamp: template.timestamp,
      baseFee: 0n,
      circulatingSupply: 0n,
      tracing: false,
    });
  }

  build(): CID {
    this.#createSingletons();
    const multisigs = this.#createAccounts();
    for (const multisig of multisigs) this.#createMultisig(multisig);
    this.#reserveMinerIds();
    this.#createRemainder();
    for (const [index, miner] of this.#template.miners.entries()) this.#createMiner(miner, index);
    this.#snapshotPower();
    const root = this.#tree.flush();
    const total = [...this.#tree.actors()].reduce((sum, [, actor]) => sum + actor.balance, 0n);
    if (total !== this.#params.totalFilecoin) {
      throw new GenesisError(`genesis holds ${total} attoFIL, not the total supply ${this.#params.totalFilecoin}`);
    }
    return root;
  }

  #createSingletons(): void {
    const singletons: Array<[bigint, ActorName, bigint]> = [
      [SYSTEM_ACTOR_ID, 'system', 0n],
      [INIT_ACTOR_ID, 'init', 0n],
      [REWARD_ACTOR_ID, 'reward', this.#params.initialRewardBalance],
      [CRON_ACTOR_ID, 'cron', 0n],
      [STORAGE_POWER_ACTOR_ID, 'storagepower', 0n],
    ];
    for (const [id, type, balance] of singletons) this.#setActor(id, type, EMPTY_STATE_HEAD, balance);
    // The EAM has no state and no constructor call (Lotus `chain/gen/genesis/genesis.go` SetupEAM).
    this.#setActor(EAM_ACTOR_ID, 'eam', EMPTY_STATE_HEAD, 0n);
    const cronEntries = [{ receiver: Address.newId(STORAGE_POWER_ACTOR_ID), methodNum: PowerMethod.OnEpochTickEnd }];
    this.#system(SYSTEM_ACTOR_ID, METHOD_CONSTRUCTOR, null);
    this.#system(INIT_ACTOR_ID, METHOD_CONSTRUCTOR, encodeCbor([this.#template.networkName]));
    this.#system(REWARD_ACTOR_ID, METHOD_CONSTRUCTOR, encodeCbor(new Uint8Array(0)));
    this.#system(CRON_ACTOR_ID, METHOD_CONSTRUCTOR, encodeCronConstructorParams(cronEntries));
    this.#system(STORAGE_POWER_ACTOR_ID, METHOD_CONSTRUCTOR, null);
    // Burnt funds is an account holding its own ID address, which no constructor accepts (Lotus writes it too).
    this.#setActor(
      BURNT_FUNDS_ACTOR_ID,
      'account',
      this.#putState(accountStateCodec, { address: Address.newId(BURNT_FUNDS_ACTOR_ID) }),
      0n,
    );
  }

  /** Accounts and multisig signers, in template order; returns the multisigs to create next. */
  #createAccounts(): GenesisMultisig[] {
    const multisigs: GenesisMultisig[] = [];
    for (const [index, actor] of this.#template.accounts.entries()) {
      if (actor.type === 'multisig') {
        for (const signer of actor.signers) this.#ensureAccount(signer);
        multisigs.push(actor);
        continue;
      }
      if (this.#tree.lookupId(actor.owner) !== undefined) {
        throw new GenesisError(`Accounts[${index}]: ${actor.owner} is declared twice`);
      }
      this.#mint(this.#ensureAccount(actor.owner), actor.balance);
    }
    return multisigs;
  }

  /**
   * A key address's account, created as a first transfer would create it. A transfer to an f410
   * address makes a placeholder (mapped in Init's address map, the f410 as its delegated address),
   * which becomes an EthAccount here rather than on its first message.
   */
  #ensureAccount(owner: Address): bigint {
    const existing = this.#tree.lookupId(owner);
    if (existing !== undefined) return existing;
    this.#implicit(SYSTEM_ACTOR_ID, owner, METHOD_SEND, null, 0n, `creating the account of ${owner}`);
    const id = this.#tree.lookupId(owner)!;
    if (isEthAddress(owner)) {
      const placeholder = this.#tree.requireActor(id, 'genesis');
      this.#tree.setActor(id, { ...placeholder, code: ACTOR_CODES.ethaccount });
    }
    return id;
  }

  #createMultisig(multisig: GenesisMultisig): void {
    this.#mint(SYSTEM_ACTOR_ID, multisig.balance);
    const constructorParams = encodeMultisigConstructorParams({
      signers: multisig.signers,
      numApprovalsThreshold: multisig.threshold,
      unlockDuration: multisig.vestingDuration,
      startEpoch: multisig.vestingStart,
    });
    this.#implicit(
      SYSTEM_ACTOR_ID,
      Address.newId(INIT_ACTOR_ID),
      InitMethod.Exec,
      encodeCbor([ACTOR_CODES.multisig, constructorParams]),
      multisig.balance,
      'creating a multisig',
    );
  }

  /** Lotus gives accounts IDs below 1000 and miners 1000 on. */
  #reserveMinerIds(): void {
    const init = this.#tree.requireActor(INIT_ACTOR_ID, 'genesis');
    const state = decodeInitState(getBlock(this.#tree.store, init.head, 'init state'));
    if (state.nextId > MINER_START_ID) {
      throw new GenesisError(
        `too many accounts: ${state.nextId - 100n} exceed the ${MINER_START_ID - 100n} IDs below f0${MINER_START_ID}`,
      );
    }
    const head = putCborBytes(this.#tree.store, encodeInitState({ ...state, nextId: MINER_START_ID }));
    this.#tree.setActor(INIT_ACTOR_ID, { ...init, head });
  }

  /** The remainder lives at the fixed f090, so it is written directly, as Lotus does. */
  #createRemainder(): void {
    const remainder: GenesisActor = this.#template.remainderAccount;
    const minted = [...this.#tree.actors()].reduce((sum, [, actor]) => sum + actor.balance, 0n);
    const rest = this.#params.totalFilecoin - minted;
    if (rest < 0n) throw new GenesisError(`the template allocates ${minted} attoFIL, more than the total supply`);
    if (remainder.type === 'account') {
      if (this.#tree.lookupId(remainder.owner) !== undefined) {
        throw new GenesisError(`RemainderAccount: ${remainder.owner} is already declared`);
      }
      this.#setActor(
        RESERVE_ACTOR_ID,
        'account',
        this.#putState(accountStateCodec, { address: remainder.owner }),
        rest,
      );
      this.#mapAddress(remainder.owner, RESERVE_ACTOR_ID);
      return;
    }
    const signers = remainder.signers.map((signer) => Address.newId(this.#ensureAccount(signer)));
    const pendingTxs = Hamt.create(this.#tree.store).flush();
    const vesting = remainder.vestingDuration !== 0n;
    const head = this.#putState(multisigStateCodec, {
      signers,
      numApprovalsThreshold: remainder.threshold,
      nextTxnId: 0n,
      initialBalance: vesting ? rest : 0n,
      startEpoch: vesting ? remainder.vestingStart : 0n,
      unlockDuration: remainder.vestingDuration,
      pendingTxs,
    });
    this.#setActor(RESERVE_ACTOR_ID, 'multisig', head, rest);
  }

  #createMiner(miner: GenesisMiner, index: number): void {
    const where = `Miners[${index}]`;
    const expectedId = MINER_START_ID + BigInt(index);
    if (!miner.id.equals(Address.newId(expectedId))) {
      throw new GenesisError(
        `${where}.ID: must be f0${expectedId} (miners are numbered from f0${MINER_START_ID}), got ${miner.id}`,
      );
    }
    const ownerId = this.#tree.lookupId(miner.owner);
    if (ownerId === undefined)
      throw new GenesisError(`${where}.Owner: ${miner.owner} must be one of the template's accounts`);
    const proofType = miner.sectors[0]?.proofType;
    if (proofType === undefined) throw new GenesisError(`${where}: a genesis miner needs pre-sealed sectors`);
    if (sectorSizeOfSealProof(proofType) !== miner.sectorSize) {
      throw new GenesisError(`${where}: seal proof ${proofType} does not seal ${miner.sectorSize}-byte sectors`);
    }
    const deposit = createMinerDeposit(this.#params.consensusMinerMinPower, this.#pledgeInputs());
    const created = this.#implicit(
      ownerId,
      Address.newId(STORAGE_POWER_ACTOR_ID),
      PowerMethod.CreateMiner,
      encodeCreateMinerParams({
        owner: miner.owner,
        worker: miner.worker,
        // Window PoSt V1_1 proof types are the seal proof's sector size index + 10.
        windowPoStProofType: BigInt((proofType % 5) + 10),
        peer: miner.peerId,
        multiaddrs: [],
      }),
      deposit,
      `${where}: creating the miner`,
    );
    const minerId = returnedIdAddress(created).id();
    if (minerId !== expectedId)
      throw new GenesisError(`${where}: the miner was assigned f0${minerId}, not f0${expectedId}`);

    const provingPeriodStart = this.#state(minerId, minerStateCodec).provingPeriodStart;
    const expiration = (MAX_PROVING_PERIODS - 1n) * EPOCHS_IN_DAY + provingPeriodStart - 1n;
    // As Lotus's genesis does (chain/gen/genesis/miners.go), one sector at a time: pre-commit it, let
    // the system actor activate it without a proof, claim its power, and mark it proven.
    for (const sector of miner.sectors) {
      const inputs = { ...this.#pledgeInputs(), epochsSinceRampStart: 0n, rampDurationEpochs: 0n };
      const deposit = preCommitDepositForPower(
        inputs.rewardEstimate,
        inputs.networkQaPowerEstimate,
        qaPowerMax(miner.sectorSize),
      );
      const pledge = initialPledgeForPower(miner.sectorSize, inputs);
      const minerAddress = Address.newId(minerId);
      const at = `${where}: pre-seal sector ${sector.sectorNumber}`;
      this.#implicit(
        ownerId,
        minerAddress,
        MinerMethod.PreCommitSectorBatch2,
        preCommitSectorBatch2Params.encode({
          sectors: [
            {
              sealProof: BigInt(sector.proofType),
              sectorNumber: sector.sectorNumber,
              sealedCid: sector.commR,
              sealRandEpoch: -1n,
              dealIds: [],
              expiration,
              unsealedCid: sector.commD,
            },
          ],
        }),
        deposit + pledge,
        `${at}: pre-committing`,
      );
      this.#implicit(
        SYSTEM_ACTOR_ID,
        minerAddress,
        MinerMethod.InternalSectorSetupForPreseal,
        internalSectorSetupForPresealParams.encode({
          sectors: [sector.sectorNumber],
          rewardSmoothed: inputs.rewardEstimate,
          rewardBaselinePower: inputs.baselinePower,
          qualityAdjPowerSmoothed: inputs.networkQaPowerEstimate,
        }),
        0n,
        `${at}: activating`,
      );
      this.#implicit(
        minerId,
        Address.newId(STORAGE_POWER_ACTOR_ID),
        PowerMethod.UpdateClaimedPower,
        updateClaimedPowerParams.encode({ rawByteDelta: miner.sectorSize, qualityAdjustedDelta: miner.sectorSize }),
        0n,
        `${at}: claiming its power`,
      );
      this.#activateAllUnproven(minerId);
    }
  }

  /** Lotus's `EraseAllUnproven`: genesis sectors count as proven, so their power (claimed above) is active. */
  #activateAllUnproven(minerId: bigint): void {
    const state = this.#state(minerId, minerStateCodec);
    state.deadlines = activateAllUnproven(this.#tree.store, state.deadlines);
    const actor = this.#tree.requireActor(minerId, 'genesis');
    this.#tree.setActor(minerId, { ...actor, head: this.#putState(minerStateCodec, state) });
  }

  /** As Lotus does, the power actor starts with the genesis power as "this epoch's" (cron has not run). */
  #snapshotPower(): void {
    const power = this.#state(STORAGE_POWER_ACTOR_ID, powerStateCodec);
    const counted = power.minerAboveMinPowerCount < 4n;
    power.thisEpochRawBytePower = counted ? power.totalBytesCommitted : power.totalRawBytePower;
    power.thisEpochQualityAdjPower = counted ? power.totalQaBytesCommitted : power.totalQualityAdjPower;
    const actor = this.#tree.requireActor(STORAGE_POWER_ACTOR_ID, 'genesis');
    this.#tree.setActor(STORAGE_POWER_ACTOR_ID, { ...actor, head: this.#putState(powerStateCodec, power) });
  }

  #pledgeInputs(): PledgeInputs {
    const reward = this.#state(REWARD_ACTOR_ID, rewardStateCodec);
    const power = this.#state(STORAGE_POWER_ACTOR_ID, powerStateCodec);
    return {
      baselinePower: reward.thisEpochBaselinePower,
      rewardEstimate: reward.thisEpochRewardSmoothed,
      networkQaPowerEstimate: power.thisEpochQaPowerSmoothed,
      circulatingSupply: 0n,
      epochsSinceRampStart: -power.rampStartEpoch,
      rampDurationEpochs: power.rampDurationEpochs,
    };
  }

  #state<S>(id: bigint, codec: StateCodec<S>): S {
    return codec.decode(getBlock(this.#tree.store, this.#tree.requireActor(id, 'genesis').head, 'actor state'));
  }

  #putState<S>(codec: StateCodec<S>, state: S): CID {
    return putCborBytes(this.#tree.store, codec.encode(state));
  }

  #setActor(id: bigint, type: ActorName, head: CID, balance: bigint): void {
    this.#tree.setActor(id, { code: ACTOR_CODES[type], head, nonce: 0n, balance, delegatedAddress: null });
  }

  #mapAddress(address: Address, id: bigint): void {
    const init = this.#tree.requireActor(INIT_ACTOR_ID, 'genesis');
    const state = decodeInitState(getBlock(this.#tree.store, init.head, 'init state'));
    const map = Hamt.load(this.#tree.store, state.addressMap);
    map.set(address.bytes, id);
    const head = putCborBytes(this.#tree.store, encodeInitState({ ...state, addressMap: map.flush() }));
    this.#tree.setActor(INIT_ACTOR_ID, { ...init, head });
  }

  /** Genesis is the only place tokens are created. */
  #mint(id: bigint, amount: bigint): void {
    const actor = this.#tree.requireActor(id, 'genesis');
    this.#tree.setActor(id, { ...actor, balance: actor.balance + amount });
  }

  #system(to: bigint, method: bigint, params: Uint8Array | null): void {
    this.#implicit(SYSTEM_ACTOR_ID, Address.newId(to), method, params, 0n, `constructing f0${to}`);
  }

  #implicit(
    from: bigint,
    to: Address,
    method: bigint,
    params: Uint8Array | null,
    value: bigint,
    what: string,
  ): Uint8Array {
    const message: Message = {
      from: Address.newId(from),
      to,
      nonce: this.#messageNonce++,
      value,
      gasLimit: GENESIS_GAS_LIMIT,
      gasFeeCap: 0n,
      gasPremium: 0n,
      method,
      params: params ?? new Uint8Array(0),
    };
    const applied = this.#vm.applyImplicitMessage(message);
    if (applied.receipt.exitCode !== 0n) {
      throw new GenesisError(`${what} failed with exit code ${applied.receipt.exitCode}: ${applied.error}`);
    }
    return applied.receipt.return;
  }
}

/** The ID address of an `[IDAddress, RobustAddress]` return (Power.CreateMiner). */
function returnedIdAddress(returned: Uint8Array): Address {
  const [idAddress] = decodeCbor(returned, 'CreateMinerReturn') as [Uint8Array, Uint8Array];
  return Address.fromBytes(idAddress);
}
