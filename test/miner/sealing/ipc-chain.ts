/**
 * The scripted chain (`scripted-chain.ts`, a test double of the chain API) served to a pipeline in a
 * child process over the `child_process.fork` channel, so the chain outlives the child the test
 * kills with SIGKILL. Values cross with the channel's `advanced` serialization (bigint and
 * Uint8Array as they are); CIDs, addresses and bitfields are sent as their string or runs.
 */
import type { ChildProcess } from 'node:child_process';
import { CID } from 'multiformats/cid';
import { BitField } from '../../../src/ipld/index.js';
import type { SealingChainApi, SealingHead, SealingSector } from '../../../src/miner/sealing/index.js';
import { Address } from '../../../src/types/index.js';

type Wire = unknown;

function toWire(value: unknown): Wire {
  if (value instanceof Address) return { $address: value.toString() };
  if (value instanceof BitField) return { $bits: value.runs() };
  const cid = CID.asCID(value);
  if (cid !== null) return { $cid: cid.toString() };
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toWire);
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, toWire(field)]));
}

function fromWire(value: Wire): unknown {
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromWire);
  const record = value as Record<string, unknown>;
  if (typeof record.$address === 'string') return Address.fromString(record.$address);
  if (Array.isArray(record.$bits)) return BitField.fromRuns(record.$bits as bigint[]);
  if (typeof record.$cid === 'string') return CID.parse(record.$cid);
  return Object.fromEntries(Object.entries(record).map(([key, field]) => [key, fromWire(field)]));
}

/** What the child tells the parent. */
export type ChildMessage =
  | { type: 'call'; id: number; method: string; args: Wire[] }
  | { type: 'subscribe'; id: number }
  | { type: 'unsubscribe'; id: number }
  | { type: 'transition'; sector: Wire }
  | { type: 'settled'; sector: Wire };

type ParentMessage =
  | { type: 'result'; id: number; value: Wire }
  | { type: 'error'; id: number; message: string }
  | { type: 'head'; id: number; head: SealingHead };

/** Parent side: answers the child's chain calls from `chain` until the child exits. */
export function serveChain(
  child: ChildProcess,
  chain: SealingChainApi,
  observe: {
    transition?: (sector: SealingSector) => void;
    settled?: (sector: SealingSector) => void;
    call?: (method: string) => void;
  },
): void {
  const subscriptions = new Map<number, () => void>();
  const send = (message: ParentMessage): void => {
    if (child.connected) child.send(message);
  };
  child.on('message', (raw) => {
    const message = raw as ChildMessage;
    if (message.type === 'call') {
      observe.call?.(message.method);
      const method = (chain as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[message.method]!;
      const args = message.args.map(fromWire);
      if (message.method === 'stateWaitMsg') args[2] = new AbortController().signal;
      method.apply(chain, args).then(
        (value) => send({ type: 'result', id: message.id, value: toWire(value) }),
        (error: Error) => send({ type: 'error', id: message.id, message: error.message }),
      );
    } else if (message.type === 'subscribe') {
      subscriptions.set(
        message.id,
        chain.chainNotify((head) => send({ type: 'head', id: message.id, head })),
      );
    } else if (message.type === 'unsubscribe') {
      subscriptions.get(message.id)?.();
      subscriptions.delete(message.id);
    } else {
      observe[message.type]?.(fromWire(message.sector) as SealingSector);
    }
  });
  child.on('exit', () => {
    for (const unsubscribe of subscriptions.values()) unsubscribe();
    subscriptions.clear();
  });
}

/** Child side: the chain API over the channel to the parent. */
export function chainOverIpc(): SealingChainApi {
  let nextId = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Map<number, (head: SealingHead) => void>();
  process.on('message', (raw) => {
    const message = raw as ParentMessage;
    if (message.type === 'head') {
      listeners.get(message.id)?.(message.head);
      return;
    }
    const call = pending.get(message.id);
    pending.delete(message.id);
    if (message.type === 'result') call?.resolve(fromWire(message.value));
    else call?.reject(new Error(message.message));
  });
  const send = (message: ChildMessage): void => {
    process.send?.(message);
  };
  const call =
    (method: string) =>
    (...args: unknown[]): Promise<never> =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        // An AbortSignal does not cross the channel; the pipeline stops with the process here.
        send({ type: 'call', id, method, args: args.filter((arg) => !(arg instanceof AbortSignal)).map(toWire) });
      });
  return {
    chainHead: call('chainHead'),
    chainNotify(listener) {
      const id = nextId++;
      listeners.set(id, listener);
      send({ type: 'subscribe', id });
      return () => {
        listeners.delete(id);
        send({ type: 'unsubscribe', id });
      };
    },
    stateGetRandomnessFromTickets: call('stateGetRandomnessFromTickets'),
    stateGetRandomnessFromBeacon: call('stateGetRandomnessFromBeacon'),
    stateMinerInfo: call('stateMinerInfo'),
    stateMinerAllocated: call('stateMinerAllocated'),
    stateMinerPreCommitDepositForPower: call('stateMinerPreCommitDepositForPower'),
    stateMinerInitialPledgeForSector: call('stateMinerInitialPledgeForSector'),
    stateSectorPreCommitInfo: call('stateSectorPreCommitInfo'),
    mpoolPushMessage: call('mpoolPushMessage'),
    stateWaitMsg: call('stateWaitMsg'),
  };
}

/** Child side: reports a sector to the parent. */
export function reportSector(type: 'transition' | 'settled', sector: SealingSector): void {
  process.send?.({ type, sector: toWire(sector) } satisfies ChildMessage);
}
