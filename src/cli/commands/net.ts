/**
 * `ledger net listen|peers|connect|id|disconnect`: the node's libp2p side, printed as Lotus's CLI
 * prints it (`lotus:cli/net.go`): listen addresses with `/p2p/<peer id>`, one peer per line.
 */

import { multiaddr } from '@multiformats/multiaddr';
import { Command } from 'commander';
import type { AddrInfoJson } from '../../rpc/methods/net.js';
import { LedgerError } from '../../utils/errors.js';
import { connectToNode, globalOptions } from '../node-connection.js';

/** `/ip4/…/tcp/…/p2p/<id>` → Lotus AddrInfo `{ID, Addrs}`. */
export function addrInfoFromMultiaddr(address: string): AddrInfoJson {
  let parsed: ReturnType<typeof multiaddr>;
  try {
    parsed = multiaddr(address);
  } catch (error) {
    throw new LedgerError(
      'ERR_INVALID_ARGUMENT',
      `invalid multiaddr ${JSON.stringify(address)}: ${(error as Error).message}`,
    );
  }
  const peer = parsed.getComponents().find((component) => component.name === 'p2p')?.value;
  if (peer === undefined)
    throw new LedgerError('ERR_INVALID_ARGUMENT', `multiaddr ${address} does not end in /p2p/<peer id>`);
  const transport = address.slice(0, address.indexOf('/p2p/'));
  return { ID: peer, Addrs: transport.length > 0 ? [transport] : [] };
}

export function netCommand(): Command {
  const net = new Command('net').description('Manage P2P network connections');
  net
    .command('listen')
    .description('List the addresses the node listens on, each with /p2p/<peer id>')
    .action(async (_options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const info = await api.NetAddrsListen();
      for (const address of info.Addrs) process.stdout.write(`${address}/p2p/${info.ID}\n`);
    });
  net
    .command('id')
    .description("Print the node's peer id")
    .action(async (_options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      process.stdout.write(`${await api.ID()}\n`);
    });
  net
    .command('peers')
    .description('List the connected peers and their addresses')
    .action(async (_options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const peers = await api.NetPeers();
      for (const peer of [...peers].sort((a, b) => a.ID.localeCompare(b.ID))) {
        process.stdout.write(`${peer.ID}, [${peer.Addrs.join(' ')}]\n`);
      }
    });
  net
    .command('connect')
    .description('Connect to peers by multiaddr (…/p2p/<peer id>)')
    .argument('<multiaddr...>', 'peer addresses')
    .action(async (addresses: string[], _options: unknown, command: Command) => {
      const infos = addresses.map(addrInfoFromMultiaddr);
      const api = await connectToNode(globalOptions(command));
      let failed = false;
      for (const info of infos) {
        try {
          await api.NetConnect(info);
          process.stdout.write(`connect ${info.ID}: success\n`);
        } catch (error) {
          process.stdout.write(`connect ${info.ID}: failure: ${(error as Error).message}\n`);
          failed = true;
        }
      }
      if (failed) process.exitCode = 1;
    });
  net
    .command('disconnect')
    .description('Close the connections to peers')
    .argument('<peerId...>', 'peer ids')
    .action(async (peers: string[], _options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      for (const peer of peers) {
        await api.NetDisconnect(peer);
        process.stdout.write(`disconnect ${peer}: success\n`);
      }
    });
  return net;
}
