/**
 * Filecoin's gossip topic names (filecoin-project/lotus `build/params_shared_funcs.go`);
 * `networkName` is the init actor's.
 */
export function blocksTopic(networkName: string): string {
  return `/fil/blocks/${networkName}`;
}

export function messagesTopic(networkName: string): string {
  return `/fil/msgs/${networkName}`;
}

/** Blocks larger than this are ignored locally (Lotus: 1 MiB − 32 KiB). */
export const MAX_BLOCK_GOSSIP_BYTES = (1 << 20) - (32 << 10);

/** What a gossip validator decides (gossipsub's Accept / Ignore / Reject). */
export type GossipVerdict = 'accept' | 'ignore' | 'reject';
