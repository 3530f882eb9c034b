/**
 * The operations routes the node mounts on its API server, at Lotus's paths (filecoin-project/lotus
 * `node/rpc.go`): `/debug/metrics` (Prometheus text), `/health/livez` and `/health/readyz` (200 or
 * 503; Lotus sends an empty body, ours says `ok` or why not, in one line).
 */
import type { PlainAnswer, PlainRoute } from '../rpc/index.js';
import type { HealthStatus, NodeHealth } from './health.js';
import type { NodeMetrics } from './node-metrics.js';

function healthAnswer(status: HealthStatus): PlainAnswer {
  return { status: status.ok ? 200 : 503, contentType: 'text/plain; charset=utf-8', body: `${status.reason}\n` };
}

export function operationsRoutes(metrics: NodeMetrics, health: NodeHealth): PlainRoute[] {
  return [
    {
      path: '/debug/metrics',
      answer: async () => ({ status: 200, contentType: metrics.contentType, body: await metrics.render() }),
    },
    { path: '/health/livez', answer: () => healthAnswer(health.live()) },
    { path: '/health/readyz', answer: () => healthAnswer(health.ready()) },
  ];
}
