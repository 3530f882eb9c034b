/**
 * The storage miners a node runs: for each one whose worker key is in the wallet, a mining loop
 * (it wins blocks with its power), a sealing pipeline (it pledges committed-capacity sectors) and a
 * window PoSt scheduler (it proves them every deadline), all on the node's chain and wallet — what
 * a Lotus full node plus one lotus-miner per miner would do. The devnet's genesis miner always runs;
 * miners added later (`ledger miner init`) are remembered in `<repo>/miners.json` and started again
 * after a restart.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ChainStore } from '../chain/index.js';
import type { MessageSearch } from '../chain/message-search.js';
import type { LedgerDatabase } from '../db/index.js';
import { nodeSealingChainApi, SealingPipeline, type SealingSector } from '../miner/index.js';
import type { MiningLoop } from '../miner/mining-loop.js';
import { nodeWindowPostChainApi, WindowPostScheduler, type WindowPostStatus } from '../miner/window-post/index.js';
import type { MessageSigner } from '../mpool/index.js';
import type { NetworkParams } from '../params/index.js';
import { SealProcess } from '../proofs/index.js';
import type { LocalMinerStatus, StorageContext } from '../rpc/index.js';
import { StateTree } from '../state/index.js';
import { Address, addressFromLotusJson } from '../types/index.js';
import { replaceFileDurably } from '../utils/durable-file.js';
import { keyAddressOf, minerInfo } from '../vm/index.js';
import type { Wallet } from '../wallet/index.js';
import { ConfigError, NoSuchMinerError } from './errors.js';

/** Where a miner added after genesis keeps its sectors: `<repo>/sectors/<miner>`. */
const ADDED_MINERS_FILE = 'miners.json';
/** The devnet produces a tipset every block time: one tipset on top is confidence enough (Lotus 2k: 1). */
const DEVNET_MESSAGE_CONFIDENCE = 1n;

/** An entry of `miners.json`. */
interface AddedMiner {
  readonly Address: string;
  readonly SectorDirectory: string;
}

interface LocalMiner {
  readonly address: Address;
  readonly worker: Address;
  readonly sectorDirectory: string;
  readonly loop: MiningLoop;
  readonly sealing: SealingPipeline;
  readonly windowPost: WindowPostScheduler;
}

export interface LocalMinersOptions {
  readonly repoPath: string;
  readonly chain: ChainStore;
  readonly params: NetworkParams;
  readonly db: LedgerDatabase;
  readonly wallet: Wallet;
  readonly signer: Pick<MessageSigner, 'pushMessage'>;
  readonly search: Pick<MessageSearch, 'wait'>;
  /** A mining loop for a miner, over its sectors (they share the node's validator, intake and slash filter). */
  readonly miningLoop: (miner: Address, sectorDirectory: string) => MiningLoop;
  readonly logger: Logger;
}

export class LocalMiners implements StorageContext {
  readonly #options: LocalMinersOptions;
  readonly #miners = new Map<string, LocalMiner>();
  /** One sealing process for all the miners: sectors seal one step at a time, below proving's priority. */
  readonly #sealer = new SealProcess();
  #started = false;

  constructor(options: LocalMinersOptions) {
    this.#options = options;
  }

  /**
   * Sets up the genesis miners (the devnet's when its worker key is here, pre-sealed ones given with
   * `--miner`) and every miner added before, and runs them unless `run` is false (then each waits,
   * stopped, for `miningLoop(…).start()` and the like).
   */
  async start(
    genesisMiners: readonly { readonly address: Address; readonly sectorDirectory: string }[] | undefined,
    run = true,
  ): Promise<void> {
    this.#started = run;
    for (const miner of genesisMiners ?? []) await this.#run(miner.address, miner.sectorDirectory);
    for (const entry of this.#readAdded()) await this.#run(Address.fromString(entry.Address), entry.SectorDirectory);
  }

  /** A miner's mining loop (the first miner's by default). */
  miningLoop(miner?: Address): MiningLoop {
    return this.#get(miner).loop;
  }

  /** A miner's window PoSt scheduler (the first miner's by default). */
  windowPost(miner?: Address): WindowPostScheduler {
    return this.#get(miner).windowPost;
  }

  async stop(): Promise<void> {
    const miners = [...this.#miners.values()];
    // The pipelines stop first, so that closing the sealing process under a C2 fails no sector.
    const sealing = miners.map((miner) => miner.sealing.stop());
    this.#sealer.close();
    for (const miner of miners) {
      await miner.loop.stop();
      await miner.windowPost.stop();
    }
    await Promise.all(sealing);
  }

  miners(): LocalMinerStatus[] {
    return [...this.#miners.values()].map((m) => ({
      address: m.address,
      worker: m.worker,
      sectorDirectory: m.sectorDirectory,
      proving: m.windowPost.status(),
    }));
  }

  async add(miner: Address): Promise<LocalMinerStatus> {
    const id = this.#idOf(miner);
    if (!this.#miners.has(id.toString())) {
      const sectorDirectory = join(this.#options.repoPath, 'sectors', id.toString());
      await this.#run(id, sectorDirectory);
      this.#writeAdded([
        ...this.#readAdded().filter((e) => e.Address !== id.toString()),
        { Address: id.toString(), SectorDirectory: sectorDirectory },
      ]);
    }
    return this.miners().find((m) => m.address.equals(id)) as LocalMinerStatus;
  }

  pledgeSector(miner?: Address): Promise<SealingSector> {
    return this.#get(miner).sealing.pledgeSector();
  }

  sectors(miner?: Address): readonly SealingSector[] {
    return this.#get(miner).sealing.sectors();
  }

  provingPause(miner?: Address): WindowPostStatus {
    const { windowPost } = this.#get(miner);
    windowPost.pause();
    return windowPost.status();
  }

  provingResume(miner?: Address): WindowPostStatus {
    const { windowPost } = this.#get(miner);
    windowPost.resume();
    return windowPost.status();
  }

  #get(miner: Address | undefined): LocalMiner {
    const found =
      miner === undefined ? this.#miners.values().next().value : this.#miners.get(this.#idOf(miner).toString());
    if (found === undefined) {
      throw new NoSuchMinerError(
        miner === undefined ? 'this node runs no storage miner' : `this node does not run miner ${miner}`,
      );
    }
    return found;
  }

  /** The miner's ID address; an error naming it when there is no such miner on chain. */
  #idOf(miner: Address): Address {
    const tree = StateTree.load(this.#options.chain.blockstore, this.#options.chain.head().parentStateRoot);
    const id = tree.lookupId(miner);
    if (id === undefined) throw new NoSuchMinerError(`no miner ${miner} on chain`);
    return Address.newId(id);
  }

  async #run(miner: Address, sectorDirectory: string): Promise<void> {
    const { chain, params, db, wallet, signer, search, logger } = this.#options;
    const tree = StateTree.load(chain.blockstore, chain.head().parentStateRoot);
    const info = minerInfo(tree, miner);
    const workerKey = keyAddressOf(tree, info.worker);
    if (!wallet.has(workerKey)) {
      throw new NoSuchMinerError(
        `miner ${miner}: the wallet does not hold its worker key ${workerKey} (${info.worker})`,
      );
    }
    mkdirSync(sectorDirectory, { recursive: true });
    const api = { chain, params, signer, search };
    const child = logger.child({ miner: miner.toString() });
    const sealing = await SealingPipeline.open({
      store: db.sealing,
      chain: nodeSealingChainApi(api),
      miner,
      sectorDirectory,
      params,
      messageConfidence: DEVNET_MESSAGE_CONFIDENCE,
      sealer: this.#sealer,
      logger: child.child({ module: 'sealing' }),
    });
    const windowPost = new WindowPostScheduler({
      miner,
      api: nodeWindowPostChainApi(api),
      policy: params.minerPolicy,
      sectorDirectory,
      logger: child.child({ module: 'wdpost' }),
    });
    const local: LocalMiner = {
      address: miner,
      worker: workerKey,
      sectorDirectory,
      loop: this.#options.miningLoop(miner, sectorDirectory),
      sealing,
      windowPost,
    };
    this.#miners.set(miner.toString(), local);
    if (this.#started) {
      local.loop.start();
      local.windowPost.start();
      local.sealing.start();
    }
  }

  #addedFile(): string {
    return join(this.#options.repoPath, ADDED_MINERS_FILE);
  }

  /** The miners added before; an error naming the file and the entry when it is not what `#writeAdded` writes. */
  #readAdded(): AddedMiner[] {
    const file = this.#addedFile();
    if (!existsSync(file)) return [];
    const bad = (what: string, cause?: unknown) =>
      new ConfigError(`${file}: ${what}; expected [{"Address": "<miner>", "SectorDirectory": "<path>"}, …]`, { cause });
    let entries: unknown;
    try {
      entries = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw bad(`not JSON (${(error as Error).message})`, error);
    }
    if (!Array.isArray(entries)) throw bad('not a list');
    return entries.map((entry: unknown, i) => {
      const { Address: address, SectorDirectory: sectorDirectory } = (entry ?? {}) as Record<string, unknown>;
      try {
        addressFromLotusJson(address, `[${i}].Address`);
      } catch (error) {
        throw bad((error as Error).message, error);
      }
      if (typeof sectorDirectory !== 'string') throw bad(`[${i}].SectorDirectory is not a path`);
      return { Address: address as string, SectorDirectory: sectorDirectory };
    });
  }

  /** A crash or power loss leaves the old list or the new one. */
  #writeAdded(entries: readonly AddedMiner[]): void {
    replaceFileDurably(this.#addedFile(), `${JSON.stringify(entries, null, 2)}\n`);
  }
}
