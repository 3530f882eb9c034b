/**
 * Where the API is: Lotus writes its listen address as a multiaddr (`/ip4/127.0.0.1/tcp/1234/http`,
 * the `api` file of the repo) and clients accept `TOKEN:ADDRESS` where ADDRESS is such a multiaddr
 * or a URL (`FULLNODE_API_INFO`, here `LEDGER_API_INFO`). This module converts between those and
 * the HTTP URL of an API path. Only the multiaddr forms a node API uses are understood.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { InvalidArgumentError } from '../utils/errors.js';
import type { ApiVersion } from './method.js';

export interface ApiInfo {
  /** Absent when the info names only an address (then calls run with `read` permission). */
  readonly token: string | undefined;
  /** A multiaddr or a URL. */
  readonly address: string;
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Lotus `ParseApiInfo`: split at the first colon unless the rest is a bare multiaddr or a URL. */
export function parseApiInfo(text: string): ApiInfo {
  const value = text.trim();
  if (!value.startsWith('/')) {
    const colon = value.indexOf(':');
    if (colon > 0 && !value.startsWith('//', colon + 1)) {
      return { token: value.slice(0, colon), address: value.slice(colon + 1) };
    }
  }
  return { token: undefined, address: value };
}

function invalid(address: string, why: string): never {
  throw new InvalidArgumentError(`invalid API address ${JSON.stringify(address)}: ${why}`);
}

interface ParsedMultiaddr extends HostPort {
  readonly secure: boolean;
}

function parseMultiaddr(address: string): ParsedMultiaddr {
  const parts = address.split('/');
  if (parts[0] !== '') invalid(address, 'a multiaddr starts with "/"');
  const [, hostProtocol, host, tcp, portText, ...rest] = parts;
  if (hostProtocol === 'ip4') {
    if (host === undefined || !isIPv4(host)) invalid(address, 'expected an IPv4 address after /ip4');
  } else if (hostProtocol === 'ip6') {
    if (host === undefined || !isIPv6(host)) invalid(address, 'expected an IPv6 address after /ip6');
  } else if (hostProtocol === 'dns' || hostProtocol === 'dns4' || hostProtocol === 'dns6') {
    if (host === undefined || !/^[a-zA-Z0-9.-]+$/.test(host))
      invalid(address, `expected a host name after /${hostProtocol}`);
  } else {
    invalid(address, 'expected /ip4, /ip6 or /dns first');
  }
  if (tcp !== 'tcp' || portText === undefined || !/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    invalid(address, 'expected /tcp/<port> after the host');
  }
  const transport = rest.join('/');
  if (!['', 'http', 'https', 'ws', 'wss', 'tls/http', 'tls/ws'].includes(transport)) {
    invalid(address, `unsupported transport /${transport}`);
  }
  return { host: host as string, port: Number(portText), secure: /https|wss|tls/.test(transport) };
}

/** The host and port of a listen multiaddr (config `ListenAddress`). */
export function parseListenAddress(multiaddr: string): HostPort {
  const { host, port } = parseMultiaddr(multiaddr);
  return { host, port };
}

/** The multiaddr a node writes to its `api` file for a listening socket. */
export function listenMultiaddr(host: string, port: number): string {
  const protocol = isIPv4(host) ? 'ip4' : isIPv6(host) ? 'ip6' : 'dns';
  return `/${protocol}/${host}/tcp/${port}/http`;
}

/** The HTTP URL of `/rpc/v<apiVersion>` for a multiaddr or URL. WebSocket schemes map to HTTP. */
export function rpcUrl(address: string, apiVersion: ApiVersion): string {
  if (address.startsWith('/')) {
    const { host, port, secure } = parseMultiaddr(address);
    const hostPart = isIPv6(host) ? `[${host}]` : host;
    return `${secure ? 'https' : 'http'}://${hostPart}:${port}/rpc/v${apiVersion}`;
  }
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    invalid(address, 'neither a multiaddr nor a URL');
  }
  if (url.protocol === 'ws:') url.protocol = 'http:';
  else if (url.protocol === 'wss:') url.protocol = 'https:';
  else if (url.protocol !== 'http:' && url.protocol !== 'https:')
    invalid(address, `unsupported scheme ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/rpc/v${apiVersion}`;
  return url.toString();
}
