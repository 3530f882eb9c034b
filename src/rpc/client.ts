/**
 * A JSON-RPC client for the node (and for Lotus: it speaks the same protocol). `RpcClient` sends
 * one call per HTTP POST with the token as a Bearer header; `NodeApi` wraps it with typed methods
 * that encode parameters and strictly decode results with the types' Lotus JSON codecs.
 * Failures are LedgerErrors: `NodeUnreachableError` when nothing answers, `RpcHttpError` for an
 * HTTP-level refusal (401: bad token), `JsonRpcError` (with `rpcCode`) for a JSON-RPC error.
 */
import {
  type Address,
  addressFromLotusJson,
  addressToLotusJson,
  jsonFail,
  type Message,
  messageToLotusJson,
  parseJsonLossless,
  readJsonArray,
  readJsonBytes,
  readJsonObject,
  type Signature,
  type SignedMessage,
  signatureFromLotusJson,
  signatureToLotusJson,
  signedMessageFromLotusJson,
  stringifyJsonLossless,
} from '../types/index.js';
import { toBase64 } from '../utils/bytes.js';
import { type KeyInfo, type KeyType, keyInfoFromLotusJson, keyInfoToLotusJson } from '../wallet/index.js';
import { JsonRpcError, NodeUnreachableError, RpcHttpError } from './errors.js';
import type { Permission } from './method.js';
import type { ApiVersionJson } from './methods/common.js';
import type { OpenRpcDocument } from './openrpc.js';

export interface RpcClientOptions {
  /** The full URL of an API path, e.g. `http://127.0.0.1:1234/rpc/v1`. */
  readonly url: string;
  readonly token?: string | undefined;
  /** Per-call time limit in milliseconds (default 60 s). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export class RpcClient {
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  #nextId = 1;

  constructor(options: RpcClientOptions) {
    this.url = options.url;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#headers = { 'content-type': 'application/json' };
    if (options.token !== undefined && options.token !== '') this.#headers.authorization = `Bearer ${options.token}`;
  }

  /** Calls `method` (its full name, e.g. `Ledger.Version`) and returns the `result` JSON. */
  async request(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const id = this.#nextId++;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: this.#headers,
        body: stringifyJsonLossless({ jsonrpc: '2.0', method, params, id }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new NodeUnreachableError(this.url, error);
    }
    // Lotus answers protocol errors with HTTP 500 and a JSON-RPC body, so any status may carry one.
    const body = parseResponse(text);
    if (body === undefined) throw new RpcHttpError(this.url, response.status, text);
    if (body.error !== undefined) {
      const { code, message, data } = body.error as { code?: unknown; message?: unknown; data?: unknown };
      throw new JsonRpcError(
        typeof code === 'number' ? code : Number(code),
        typeof message === 'string' ? message : 'JSON-RPC error without a message',
        { data },
      );
    }
    if (!response.ok) throw new RpcHttpError(this.url, response.status, text);
    return body.result;
  }
}

function parseResponse(text: string): Record<string, unknown> | undefined {
  try {
    const body = parseJsonLossless(text);
    if (typeof body === 'object' && body !== null && ('result' in body || 'error' in body)) {
      return body as Record<string, unknown>;
    }
  } catch {
    // not JSON: an HTTP-level answer
  }
  return undefined;
}

function readBoolean(json: unknown, path: string): boolean {
  return typeof json === 'boolean' ? json : jsonFail(path, 'a boolean', json);
}

function readNumber(json: unknown, path: string): number {
  return typeof json === 'number' ? json : jsonFail(path, 'a number', json);
}

function readString(json: unknown, path: string): string {
  return typeof json === 'string' ? json : jsonFail(path, 'a string', json);
}

/** The node's API with typed calls (namespace `Ledger.`). */
export class NodeApi {
  readonly rpc: RpcClient;

  constructor(rpc: RpcClient) {
    this.rpc = rpc;
  }

  #call(name: string, params: readonly unknown[] = []): Promise<unknown> {
    return this.rpc.request(`Ledger.${name}`, params);
  }

  async version(): Promise<ApiVersionJson> {
    const json = readJsonObject(await this.#call('Version'), 'Version');
    return {
      Version: readString(json.Version, 'Version.Version'),
      APIVersion: readNumber(json.APIVersion, 'Version.APIVersion'),
      BlockDelay: readNumber(json.BlockDelay, 'Version.BlockDelay'),
      Agent: readString(json.Agent, 'Version.Agent'),
    };
  }

  async discover(): Promise<OpenRpcDocument> {
    return readJsonObject(await this.#call('Discover'), 'Discover') as unknown as OpenRpcDocument;
  }

  /** A new token; AuthNew's base64 is decoded here. */
  async authNew(permissions: readonly Permission[]): Promise<string> {
    return new TextDecoder().decode(readJsonBytes(await this.#call('AuthNew', [permissions]), 'AuthNew'));
  }

  async authVerify(token: string): Promise<string[]> {
    return readJsonArray(await this.#call('AuthVerify', [token]), 'AuthVerify', readString);
  }

  async walletNew(type: KeyType): Promise<Address> {
    return addressFromLotusJson(await this.#call('WalletNew', [type]), 'WalletNew');
  }

  async walletList(): Promise<Address[]> {
    return readJsonArray(await this.#call('WalletList'), 'WalletList', addressFromLotusJson);
  }

  async walletHas(address: Address): Promise<boolean> {
    return readBoolean(await this.#call('WalletHas', [addressToLotusJson(address)]), 'WalletHas');
  }

  async walletDefaultAddress(): Promise<Address> {
    return addressFromLotusJson(await this.#call('WalletDefaultAddress'), 'WalletDefaultAddress');
  }

  async walletSetDefault(address: Address): Promise<void> {
    await this.#call('WalletSetDefault', [addressToLotusJson(address)]);
  }

  async walletSign(address: Address, data: Uint8Array): Promise<Signature> {
    return signatureFromLotusJson(
      await this.#call('WalletSign', [addressToLotusJson(address), toBase64(data)]),
      'WalletSign',
    );
  }

  async walletSignMessage(address: Address, message: Message): Promise<SignedMessage> {
    return signedMessageFromLotusJson(
      await this.#call('WalletSignMessage', [addressToLotusJson(address), messageToLotusJson(message)]),
      'WalletSignMessage',
    );
  }

  async walletVerify(address: Address, data: Uint8Array, signature: Signature): Promise<boolean> {
    const params = [addressToLotusJson(address), toBase64(data), signatureToLotusJson(signature)];
    return readBoolean(await this.#call('WalletVerify', params), 'WalletVerify');
  }

  async walletExport(address: Address): Promise<KeyInfo> {
    return keyInfoFromLotusJson(await this.#call('WalletExport', [addressToLotusJson(address)]), 'WalletExport');
  }

  async walletImport(keyInfo: KeyInfo): Promise<Address> {
    return addressFromLotusJson(await this.#call('WalletImport', [keyInfoToLotusJson(keyInfo)]), 'WalletImport');
  }

  async walletDelete(address: Address): Promise<void> {
    await this.#call('WalletDelete', [addressToLotusJson(address)]);
  }
}
