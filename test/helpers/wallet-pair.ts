/**
 * Two funded addresses of a devnet's wallet, in Lotus's text form: the default address (a sender)
 * and another secp256k1 account (a recipient).
 */
import { type Devnet, startDevnet } from './devnet.js';

export interface WalletRpc {
  rpc<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
}

export async function walletPair(devnet: WalletRpc): Promise<{ from: string; to: string }> {
  const from = await devnet.rpc<string>('WalletDefaultAddress');
  const to = (await devnet.rpc<string[]>('WalletList')).find((a) => a !== from && a.startsWith('t1'));
  if (to === undefined)
    throw new Error('the devnet wallet holds no second secp256k1 address: start it with accounts ≥ 2');
  return { from, to };
}

/** A mining devnet (2 s epochs, three funded accounts) and its wallet pair, for tests that send transfers. */
export async function startPairedDevnet(): Promise<{ devnet: Devnet; from: string; to: string }> {
  const devnet = await startDevnet({ blockTimeMs: 2000, accounts: 3 });
  try {
    return { devnet, ...(await walletPair(devnet)) };
  } catch (error) {
    await devnet.stop();
    throw error;
  }
}
