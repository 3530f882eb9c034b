/**
 * A Map-backed world for the EVM bridge: contracts (code, storage, balance), transient storage and
 * an event list, with an `EvmHost` per running contract. It stands in for the EVM actor over the
 * real VM (tested on its own); like the FVM it undoes a failed call's state changes and events,
 * and runs a called contract in a nested `runEvm`.
 */
import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import { keccak256 } from '../../../src/crypto/index.js';
import { toHex } from '../../../src/utils/bytes.js';
import type { EvmBridge } from '../../../src/vm/evm/interpreter.js';
import type { EvmContext, EvmHost, EvmOutcome } from '../../../src/vm/evm/types.js';

interface Contract {
  code: Uint8Array;
  storage: Map<bigint, bigint>;
  balance: bigint;
  nonce: bigint;
}

export interface LoggedEvent {
  readonly address: string;
  readonly topics: string[];
  readonly data: Uint8Array;
}

export type HostCallRequest = Parameters<EvmHost['call']>[0];

export const CHAIN_ID = 31415926n;

export function address(byte: number): Uint8Array {
  return new Uint8Array(20).fill(byte);
}

export class MapWorld {
  readonly contracts = new Map<string, Contract>();
  readonly transient = new Map<string, Map<bigint, bigint>>();
  events: LoggedEvent[] = [];
  /** Every host.call the contracts made, for assertions on what the bridge passes. */
  readonly calls: HostCallRequest[] = [];
  /** Overrides for single host methods, per test. */
  hooks: Partial<EvmHost> = {};
  block = { epoch: 1000n, timestamp: 1_700_000_000n, baseFee: 100n, gasPrice: 150n };

  /** Deployments by accounts (not contracts), for CREATE addresses. */
  readonly #accountNonces = new Map<string, bigint>();

  constructor(private readonly bridge: EvmBridge) {}

  contract(at: Uint8Array): Contract | undefined {
    return this.contracts.get(toHex(at));
  }

  /** Deploys `initcode` from `from` (CREATE-style address) and returns the new address. */
  deploy(initcode: Uint8Array, from: Uint8Array = address(0xee)): Uint8Array {
    const created = this.#create(from, { kind: 'create', value: 0n, initcode }, from);
    if (created.address === null) throw new Error(`deploy failed: ${toHex(created.output)}`);
    return created.address;
  }

  /** Calls `to` with `input` as an external transaction from `from`. */
  call(
    to: Uint8Array,
    input: Uint8Array,
    options: { from?: Uint8Array; value?: bigint; readOnly?: boolean } = {},
  ): EvmOutcome {
    const from = options.from ?? address(0xee);
    return this.#run(to, input, {
      caller: from,
      origin: from,
      value: options.value ?? 0n,
      readOnly: options.readOnly ?? false,
    });
  }

  #context(
    at: Uint8Array,
    frame: { caller: Uint8Array; origin: Uint8Array; value: bigint; readOnly: boolean },
  ): EvmContext {
    return {
      address: at,
      ...frame,
      chainId: CHAIN_ID,
      epoch: this.block.epoch,
      timestamp: this.block.timestamp,
      baseFee: this.block.baseFee,
      gasPrice: this.block.gasPrice,
    };
  }

  /** Runs the contract at `to`; a failed run leaves no state or events behind. */
  #run(
    to: Uint8Array,
    input: Uint8Array,
    frame: { caller: Uint8Array; origin: Uint8Array; value: bigint; readOnly: boolean },
    codeFrom: Uint8Array = to,
  ): EvmOutcome {
    const code = this.contract(codeFrom)?.code ?? new Uint8Array(0);
    const context = this.#context(to, frame);
    return this.#transaction(
      () => this.bridge.run(code, input, context, this.host(context)),
      (o) => o.status === 'success',
    );
  }

  #transaction<T>(body: () => T, succeeded: (result: T) => boolean): T {
    const saved = new Map([...this.contracts].map(([key, c]) => [key, { ...c, storage: new Map(c.storage) }]));
    const events = this.events.length;
    let ok = false;
    try {
      const result = body();
      ok = succeeded(result);
      return result;
    } finally {
      if (!ok) {
        this.contracts.clear();
        for (const [key, c] of saved) this.contracts.set(key, c);
        this.events = this.events.slice(0, events);
      }
    }
  }

  #create(
    deployer: Uint8Array,
    request: { kind: 'create' | 'create2'; value: bigint; initcode: Uint8Array; salt?: Uint8Array },
    origin: Uint8Array,
  ): { address: Uint8Array | null; output: Uint8Array } {
    const self = this.contract(deployer);
    const nonce = self?.nonce ?? this.#accountNonces.get(toHex(deployer)) ?? 0n;
    if (self !== undefined) self.nonce++;
    else this.#accountNonces.set(toHex(deployer), nonce + 1n);
    const at =
      request.kind === 'create2'
        ? generateAddress2(deployer, request.salt!, request.initcode)
        : generateAddress(deployer, nonce === 0n ? new Uint8Array(0) : Uint8Array.of(Number(nonce)));
    return this.#transaction(
      () => {
        this.contracts.set(toHex(at), {
          code: new Uint8Array(0),
          storage: new Map(),
          balance: request.value,
          nonce: 1n,
        });
        const context = this.#context(at, { caller: deployer, origin, value: request.value, readOnly: false });
        const outcome = this.bridge.run(request.initcode, new Uint8Array(0), context, this.host(context));
        if (outcome.status !== 'success')
          return { address: null, output: outcome.status === 'revert' ? outcome.output : new Uint8Array(0) };
        this.contract(at)!.code = outcome.output;
        return { address: at, output: new Uint8Array(0) };
      },
      (result) => result.address !== null,
    );
  }

  /** The host the contract running in `context` sees. */
  host(context: EvmContext): EvmHost {
    const self = toHex(context.address);
    const world = this;
    const transient = () => {
      let slots = this.transient.get(self);
      if (slots === undefined) {
        slots = new Map();
        this.transient.set(self, slots);
      }
      return slots;
    };
    const base: EvmHost = {
      storageGet: (key) => this.contracts.get(self)?.storage.get(key) ?? 0n,
      storageSet: (key, value) => {
        const storage = this.contracts.get(self)!.storage;
        if (value === 0n) storage.delete(key);
        else storage.set(key, value);
      },
      transientGet: (key) => transient().get(key) ?? 0n,
      transientSet: (key, value) => void transient().set(key, value),
      balance: (at) => this.contract(at)?.balance ?? 0n,
      code: (at) => this.contract(at)?.code ?? new Uint8Array(0),
      codeHash: (at) => {
        const contract = this.contract(at);
        return contract === undefined ? null : keccak256(contract.code);
      },
      call(request) {
        world.calls.push(request);
        const { kind, to, input } = request;
        const target = kind === 'delegatecall' ? context.address : to;
        const frame =
          kind === 'delegatecall'
            ? { caller: context.caller, origin: context.origin, value: context.value, readOnly: context.readOnly }
            : {
                caller: context.address,
                origin: context.origin,
                value: request.value,
                readOnly: context.readOnly || kind === 'staticcall',
              };
        const outcome = world.#run(target, input, frame, to);
        return {
          success: outcome.status === 'success',
          output: outcome.status === 'error' ? new Uint8Array(0) : outcome.output,
        };
      },
      create: (request) => this.#create(context.address, request, context.origin),
      selfDestruct: () => {
        throw new Error('selfDestruct: not in these tests');
      },
      log: (topics, data) => this.events.push({ address: self, topics: topics.map(toHex), data }),
      blockHash: (epoch) => new Uint8Array(32).fill(Number(epoch % 256n)),
      prevRandao: () => new Uint8Array(32).fill(0x42),
      gasAvailable: () => 5_000_000_000n,
      precompile: () => undefined,
    };
    return { ...base, ...this.hooks };
  }
}
