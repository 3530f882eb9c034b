/**
 * Operations: the node's Prometheus metrics, its liveness and readiness, and the routes that serve
 * them beside the API (docs/operations.md, "Health and metrics").
 */
export {
  type HealthSources,
  type HealthStatus,
  LIVENESS_WINDOW_MS,
  NodeHealth,
  READY_MAX_EPOCHS_BEHIND,
} from './health.js';
export { type MetricSources, NodeMetrics, type NodeMetricsOptions } from './node-metrics.js';
export { operationsRoutes } from './routes.js';
