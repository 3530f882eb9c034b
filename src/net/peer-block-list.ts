/**
 * The peers, IP addresses and subnets the node refuses to connect with (NetBlockAdd,
 * NetBlockRemove, NetBlockList; go-libp2p `p2p/net/conngater` `BasicConnectionGater`, which Lotus
 * wires into its host). The host's connection gater asks it at dial and at accept. Given a store,
 * it starts from what the store holds and writes every change through, so a restart keeps it, as
 * Lotus's datastore-backed gater does.
 */
import { BlockList, isIP } from 'node:net';
import type { Multiaddr } from '@multiformats/multiaddr';
import type { NetBlockKind, NetBlockStore } from '../db/index.js';
import { NetError, NetErrorCode } from './errors.js';
import { parsePeerId } from './peer-ids.js';

/** Lotus `api.NetBlockList`, as the node keeps it: canonical IPs and `ip/prefix` subnets. */
export interface BlockedEntries {
  readonly peers: string[];
  readonly ipAddrs: string[];
  readonly ipSubnets: string[];
}

type IpFamily = 'ipv4' | 'ipv6';

/** An IP address in the form go's `net.IP.String()` prints (IPv6 compressed, lower case). */
function canonicalIp(text: string): { ip: string; family: IpFamily } | undefined {
  const version = isIP(text);
  if (version === 4) return { ip: text, family: 'ipv4' };
  if (version === 6) return { ip: new URL(`http://[${text}]`).hostname.slice(1, -1), family: 'ipv6' };
  return undefined;
}

function parseSubnet(text: string): { ip: string; prefix: number; family: IpFamily } | undefined {
  const [address, prefixText, ...rest] = text.split('/');
  if (address === undefined || prefixText === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefixText)) {
    return undefined;
  }
  const ip = canonicalIp(address);
  const prefix = Number(prefixText);
  if (ip === undefined || prefix > (ip.family === 'ipv4' ? 32 : 128)) return undefined;
  return { ...ip, prefix };
}

/** The IP a multiaddr reaches (its ip4 or ip6 component), if it names one. */
export function multiaddrIp(address: Multiaddr): string | undefined {
  const component = address.getComponents().find((c) => c.name === 'ip4' || c.name === 'ip6');
  return component?.value;
}

export class PeerBlockList {
  readonly #store: Pick<NetBlockStore, 'list' | 'update'> | undefined;
  readonly #peers = new Set<string>();
  readonly #ips = new Map<string, IpFamily>();
  readonly #subnets = new Map<string, { ip: string; prefix: number; family: IpFamily }>();
  /** node:net's matcher over the IPs and subnets above, rebuilt when they change (it cannot remove). */
  #matcher = new BlockList();

  constructor(store?: Pick<NetBlockStore, 'list' | 'update'>) {
    this.#store = store;
    if (store === undefined) return;
    const stored: Record<NetBlockKind, string[]> = { peer: [], ip: [], subnet: [] };
    for (const { kind, value } of store.list()) stored[kind]?.push(value);
    this.#apply({ peers: stored.peer, ipAddrs: stored.ip, ipSubnets: stored.subnet }, false);
  }

  /** Checks every entry before changing anything, so a bad one leaves the list (and the store) as it was. */
  add(entries: BlockedEntries): void {
    this.#apply(entries, false);
  }

  remove(entries: BlockedEntries): void {
    this.#apply(entries, true);
  }

  #apply(entries: BlockedEntries, remove: boolean): void {
    const { peers, ips, subnets } = this.#parse(entries);
    const keyed = subnets.map((subnet) => ({ key: `${subnet.ip}/${subnet.prefix}`, subnet }));
    this.#store?.update(
      [
        ...peers.map((value) => ({ kind: 'peer' as const, value })),
        ...ips.map(({ ip }) => ({ kind: 'ip' as const, value: ip })),
        ...keyed.map(({ key }) => ({ kind: 'subnet' as const, value: key })),
      ],
      remove,
    );
    if (remove) {
      for (const peer of peers) this.#peers.delete(peer);
      for (const { ip } of ips) this.#ips.delete(ip);
      for (const { key } of keyed) this.#subnets.delete(key);
    } else {
      for (const peer of peers) this.#peers.add(peer);
      for (const { ip, family } of ips) this.#ips.set(ip, family);
      for (const { key, subnet } of keyed) this.#subnets.set(key, subnet);
    }
    this.#rebuild();
  }

  list(): BlockedEntries {
    return { peers: [...this.#peers], ipAddrs: [...this.#ips.keys()], ipSubnets: [...this.#subnets.keys()] };
  }

  hasPeer(peer: string): boolean {
    return this.#peers.has(peer);
  }

  /** Whether an IP is blocked, by itself or by a subnet holding it. */
  blocksIp(text: string): boolean {
    const ip = canonicalIp(text);
    return ip !== undefined && this.#matcher.check(ip.ip, ip.family);
  }

  /** Whether a multiaddr reaches a blocked IP. */
  blocksAddress(address: Multiaddr): boolean {
    const ip = multiaddrIp(address);
    return ip !== undefined && this.blocksIp(ip);
  }

  #parse(entries: BlockedEntries) {
    const peers = entries.peers.map((text) => parsePeerId(text).toString());
    const ips = entries.ipAddrs.map((text) => {
      const ip = canonicalIp(text);
      if (ip === undefined) throw new NetError(NetErrorCode.BadAddress, `error parsing IP address ${text}`);
      return ip;
    });
    const subnets = entries.ipSubnets.map((text) => {
      const subnet = parseSubnet(text);
      if (subnet === undefined) {
        throw new NetError(NetErrorCode.BadAddress, `error parsing subnet ${text}: expected an ip/prefix (CIDR)`);
      }
      return subnet;
    });
    return { peers, ips, subnets };
  }

  #rebuild(): void {
    const matcher = new BlockList();
    for (const [ip, family] of this.#ips) matcher.addAddress(ip, family);
    for (const { ip, prefix, family } of this.#subnets.values()) matcher.addSubnet(ip, prefix, family);
    this.#matcher = matcher;
  }
}
