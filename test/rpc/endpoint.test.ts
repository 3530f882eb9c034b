/** API addresses: Lotus's TOKEN:ADDRESS parsing, multiaddr ↔ URL. */
import { listenMultiaddr, parseApiInfo, parseListenAddress, rpcUrl } from '../../src/rpc/index.js';

describe('parseApiInfo (Lotus ParseApiInfo)', () => {
  test.each([
    ['eyJ.a.b:/ip4/127.0.0.1/tcp/1234/http', 'eyJ.a.b', '/ip4/127.0.0.1/tcp/1234/http'],
    ['/ip4/127.0.0.1/tcp/1234/http', undefined, '/ip4/127.0.0.1/tcp/1234/http'],
    ['http://node.example:1234', undefined, 'http://node.example:1234'],
    ['tok:http://node.example:1234', 'tok', 'http://node.example:1234'],
    ['  tok:/dns/node/tcp/1/http\n', 'tok', '/dns/node/tcp/1/http'],
  ])('%s', (text, token, address) => {
    expect(parseApiInfo(text)).toEqual({ token, address });
  });
});

describe('rpcUrl', () => {
  test.each([
    ['/ip4/127.0.0.1/tcp/1234/http', 'http://127.0.0.1:1234/rpc/v1'],
    ['/ip4/10.0.0.2/tcp/80', 'http://10.0.0.2:80/rpc/v1'],
    ['/ip6/::1/tcp/1234/http', 'http://[::1]:1234/rpc/v1'],
    ['/dns/node.example/tcp/443/https', 'https://node.example:443/rpc/v1'],
    ['/dns4/node.example/tcp/443/wss', 'https://node.example:443/rpc/v1'],
    ['/ip4/1.2.3.4/tcp/1234/tls/http', 'https://1.2.3.4:1234/rpc/v1'],
    ['http://127.0.0.1:1234', 'http://127.0.0.1:1234/rpc/v1'],
    ['ws://127.0.0.1:1234/', 'http://127.0.0.1:1234/rpc/v1'],
    ['https://provider.example/lotus', 'https://provider.example/lotus/rpc/v1'],
  ])('%s', (address, url) => {
    expect(rpcUrl(address, 1)).toBe(url);
  });

  test('v0 paths', () => {
    expect(rpcUrl('/ip4/127.0.0.1/tcp/1234/http', 0)).toBe('http://127.0.0.1:1234/rpc/v0');
  });

  test.each([
    ['/ip4/300.0.0.1/tcp/1/http', 'expected an IPv4 address'],
    ['/ip4/127.0.0.1/udp/1/http', 'expected /tcp/<port>'],
    ['/ip4/127.0.0.1/tcp/70000/http', 'expected /tcp/<port>'],
    ['/ip4/127.0.0.1/tcp/1/quic', 'unsupported transport /quic'],
    ['ftp://x', 'unsupported scheme ftp:'],
    ['not an address', 'neither a multiaddr nor a URL'],
  ])('%s is refused: %s', (address, why) => {
    expect(() => rpcUrl(address, 1)).toThrow(why);
  });
});

test('listen addresses round-trip through the api file format', () => {
  expect(listenMultiaddr('127.0.0.1', 1234)).toBe('/ip4/127.0.0.1/tcp/1234/http');
  expect(listenMultiaddr('::1', 1234)).toBe('/ip6/::1/tcp/1234/http');
  expect(listenMultiaddr('localhost', 1)).toBe('/dns/localhost/tcp/1/http');
  expect(parseListenAddress('/ip4/0.0.0.0/tcp/0/http')).toEqual({ host: '0.0.0.0', port: 0 });
});
