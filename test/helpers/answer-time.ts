/**
 * How long a node takes to answer a JSON-RPC request, up to the answer's first bytes: the call's
 * own time, without the client reading a large answer. Tests of aborted calls compare with it.
 */
import { request } from 'node:http';

export function answerStartMs(url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const client = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      const elapsed = performance.now() - started;
      response.resume();
      response.on('end', () => resolve(elapsed));
      response.on('error', reject);
    });
    client.on('error', reject);
    client.end(JSON.stringify(body));
  });
}
