/**
 * `ledger chain notify` and `ledger mpool sub` against an in-process devnet (real mining, real
 * signatures), run through the CLI's `main()` in this process: they follow the node over WebSocket
 * and print each value as it comes — head changes as `<type> <height> {<block CIDs>}` lines, the
 * current head first, then one apply per epoch; pool updates as indented JSON, a pushed message as
 * Type 0 — and return when the node stops (it closes their channels).
 */
import { main } from '../../src/cli/main.js';
import { withCliOutput } from '../helpers/cli-in-process.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const TIMEOUT_MS = 5 * 60_000;

let devnet: Devnet | undefined;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 1000, accounts: 2 });
  await devnet.waitForHeight(1, TIMEOUT_MS);
}, TIMEOUT_MS);
afterAll(() => devnet?.stop());

async function until(done: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `chain notify` lines among the writes. */
const headLines = (writes: readonly string[]) =>
  writes
    .filter((w) => /^(current|apply|revert) /.test(w))
    .flatMap((w) => w.split('\n'))
    .filter((line) => line !== '');
/** `mpool sub` updates among the writes (each an indented JSON object, in one write). */
const updates = (writes: readonly string[]) => writes.filter((w) => w.startsWith('{')).map((w) => JSON.parse(w));

test(
  'both print what the node sends until the node stops',
  async () => {
    const node = devnet!;
    const [from, to] = node.accounts;
    const apiInfo = `${node.token}:${node.url.replace(/\/rpc\/v1$/, '')}`;
    const { writes, pushed } = await withCliOutput(apiInfo, async (writes) => {
      const following = Promise.all([
        main(['node', 'ledger', 'chain', 'notify']),
        main(['node', 'ledger', 'mpool', 'sub']),
      ]);
      // An apply after the current head: a second has passed, and both commands, which dial the same
      // local server at once, have subscribed (MpoolSub sends no snapshot, so it must be on first).
      await until(() => headLines(writes).some((line) => line.startsWith('apply')), 'an apply');
      const pushed = await node.rpc<{ CID: { '/': string } }>('MpoolPushMessage', [
        { To: to!.address, From: from!.address, Value: '1000', Method: 0, Params: null, Nonce: 0, GasLimit: 0 },
        null,
      ]);
      await until(() => updates(writes).some((u) => u.Type === 0), 'the pushed message on mpool sub');
      await until(() => headLines(writes).filter((line) => line.startsWith('apply')).length >= 3, 'three applies');
      // The node stops: it closes both channels, and both commands return.
      await node.stop();
      await following;
      return { writes, pushed };
    });

    const lines = headLines(writes);
    expect(lines[0]).toMatch(/^current \d+ \{bafy2bza[a-z2-7]+(,bafy2bza[a-z2-7]+)*\}$/);
    const applies = lines.filter((line) => line.startsWith('apply '));
    expect(applies.every((line) => /^apply \d+ \{bafy2bza[a-z2-7]+(,bafy2bza[a-z2-7]+)*\}$/.test(line))).toBe(true);
    const heights = applies.map((line) => Number(line.split(' ')[1]));
    expect(heights).toEqual([...heights].sort((a, b) => a - b));
    expect(heights[0]).toBeGreaterThan(Number(lines[0]!.split(' ')[1]));
    const added = updates(writes).find((u) => u.Type === 0);
    expect(added.Message.CID['/']).toBe(pushed.CID['/']);
    expect(added.Message.Message.From).toBe(from!.address);
    // Indented as Lotus's json.MarshalIndent(update, "", "  ").
    expect(writes.find((w) => w.startsWith('{'))).toMatch(/^\{\n {2}"Type": 0,\n {2}"Message": \{/);
  },
  TIMEOUT_MS,
);
