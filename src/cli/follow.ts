/**
 * What the follow commands (`ledger chain notify`, `ledger mpool sub`) share: a channel method
 * called over WebSocket on the node's `/rpc/v1` (channels need one: docs/websocket.md), each value
 * printed as it arrives, until Ctrl-C (the connection closes, which ends the subscription on the
 * node) or the node closes the channel (it stops, or this client read too slowly).
 */
import { rpcUrl } from '../rpc/endpoint.js';
import { NAMESPACES } from '../rpc/method.js';
import { WebSocketRpcClient } from '../rpc/ws-client.js';
import { findNode, type GlobalOptions } from './node-connection.js';

export async function followChannel(
  options: GlobalOptions,
  method: string,
  print: (value: unknown) => void,
): Promise<void> {
  const endpoint = findNode(options);
  const client = await WebSocketRpcClient.connect(rpcUrl(endpoint.address, 1), endpoint.token);
  const stop = () => void client.close();
  process.once('SIGINT', stop);
  try {
    const channel = await client.subscribe(`${NAMESPACES[0]}.${method}`);
    for await (const value of channel) print(value);
  } finally {
    process.off('SIGINT', stop);
    await client.close();
  }
}
