/**
 * JSON-RPC to a node under test: single calls through the project's `RpcClient` (one time limit per
 * call), and raw posts for what a well-behaved client never sends (batches, bodies cut off).
 */
import { RpcClient } from '../../src/rpc/client.js';
import { JsonRpcError } from '../../src/rpc/errors.js';
import type { Endpoint } from './node-process.js';

export interface TipSetJson {
  readonly Cids: readonly { '/': string }[];
  readonly Height: number;
  readonly Blocks: readonly { ParentBaseFee: string; Miner: string }[];
}

export class NodeRpc {
  readonly endpoint: Endpoint;

  constructor(endpoint: Endpoint) {
    this.endpoint = endpoint;
  }

  call<T>(method: string, params: readonly unknown[] = [], timeoutMs = 30_000): Promise<T> {
    return new RpcClient({ ...this.endpoint, timeoutMs }).request(`Ledger.${method}`, params) as Promise<T>;
  }

  head(timeoutMs = 10_000): Promise<TipSetJson> {
    return this.call<TipSetJson>('ChainHead', [], timeoutMs);
  }

  /** POSTs `body` as is; resolves with the status and text of the answer. */
  async post(
    body: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ status: number; text: string }> {
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal === undefined ? [] : [options.signal])];
    const response = await fetch(this.endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.endpoint.token}` },
      body,
      signal: AbortSignal.any(signals),
    });
    return { status: response.status, text: await response.text() };
  }
}

/** True when the node answered with a JSON-RPC error (it handled the call and refused it). */
export function isRefusal(error: unknown): error is JsonRpcError {
  return error instanceof JsonRpcError;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
