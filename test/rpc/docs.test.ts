/** docs/api.md and the OpenRPC document are generated from the declarations and must stay in step. */
import { readFileSync } from 'node:fs';
import { allMethods, buildOpenRpcDocument, renderApiMarkdown } from '../../src/rpc/index.js';
import { call, startTestServer, type TestServer } from './harness.js';

test('docs/api.md is up to date (regenerate with `npm run docs:api`)', () => {
  const onDisk = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  expect(onDisk).toBe(renderApiMarkdown(allMethods));
});

test('docs/api.md has a row for every method with its permission', () => {
  const markdown = renderApiMarkdown(allMethods);
  for (const method of allMethods) {
    expect(markdown).toMatch(new RegExp(`\\| \`Ledger\\.${method.name}\`[^\\n]* \\| ${method.permission} \\|`));
  }
});

describe('rpc.discover', () => {
  let server: TestServer;
  // The test server has no chain, pool, network or miner: it serves (and describes) the methods that need none.
  const methods = allMethods.filter((method) => method.needs.length === 0);
  beforeAll(async () => {
    server = await startTestServer({ methods });
  });
  afterAll(() => server.close());

  test('serves the OpenRPC document of the path, also as Filecoin.Discover', async () => {
    const discovered = (await call(server.url(1), 'rpc.discover', [])).result;
    expect(discovered).toEqual(JSON.parse(JSON.stringify(buildOpenRpcDocument(methods, 1))));
    expect((await call(server.url(1), 'Filecoin.Discover', [])).result).toEqual(discovered);
    expect((await call(server.url(0), 'rpc.discover', [])).result).toMatchObject({ info: { version: '1.5.0' } });
  });

  test('describes every method: positional params with schemas, result and permission', () => {
    const document = buildOpenRpcDocument(allMethods, 1);
    expect(document.openrpc).toBe('1.2.6');
    expect(document.methods.map((m) => m.name).sort()).toEqual(
      allMethods
        .filter((m) => m.apiVersions.includes(1))
        .map((m) => `Ledger.${m.name}`)
        .sort(),
    );
    const sign = document.methods.find((m) => m.name === 'Ledger.WalletSign');
    expect(sign).toMatchObject({
      paramStructure: 'by-position',
      params: [
        { name: 'address', required: true, schema: { title: 'Address' } },
        { name: 'data', required: true, schema: { title: 'Bytes' } },
      ],
      result: { schema: { title: 'Signature' } },
      'x-permission': 'sign',
    });
  });
});
