/**
 * Running the `ledger` CLI's `main()` in this process (no dist/ build needed): `LEDGER_API_INFO`
 * set to the node under test and everything written to stdout collected, one entry per write, for
 * as long as `run` lasts; both are restored after.
 */
export async function withCliOutput<T>(apiInfo: string, run: (writes: string[]) => Promise<T>): Promise<T> {
  const writes: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const saved = process.env.LEDGER_API_INFO;
  process.env.LEDGER_API_INFO = apiInfo;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    writes.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    return await run(writes);
  } finally {
    process.stdout.write = write;
    if (saved === undefined) delete process.env.LEDGER_API_INFO;
    else process.env.LEDGER_API_INFO = saved;
  }
}
