/**
 * The Log methods (filecoin-project/lotus `api/api_common.go`, MethodGroup Log): the node's log
 * subsystems and their levels, changed while it runs (src/node `subsystem-loggers.ts`).
 */
import { declareMethod, methodsNeeding } from '../method.js';
import { stringParam } from '../params.js';
import { jsonResult, voidResult } from '../results.js';

const declareLogMethod = methodsNeeding('logs');

export const logList = declareLogMethod({
  name: 'LogList',
  description: "The node's log subsystems (rpc, net, sync, mpool, miner …; node for the node's own lines), sorted.",
  permission: 'write',
  params: [],
  result: jsonResult<string[]>('subsystems', 'subsystem names', { type: 'array', items: { type: 'string' } }),
  handler: (_params, { logs }) => logs.list(),
});

export const logSetLevel = declareLogMethod({
  name: 'LogSetLevel',
  description:
    'Sets the level of a log subsystem (* for all of them) until the node stops: trace, debug, info, warn, error, fatal or silent.',
  permission: 'write',
  params: [stringParam('subsystem', 'a name LogList gives, or *'), stringParam('level', 'the pino level')],
  result: voidResult,
  handler: ([subsystem, level], { logs }) => logs.setLevel(subsystem, level),
});

/** Lotus `alerting.Alert` (filecoin-project/lotus `journal/alerting/alerts.go`). */
export interface AlertJson {
  Type: { System: string; Subsystem: string };
  Active: boolean;
  LastActive: { Type: string; Message: unknown; Time: string } | null;
  LastResolved: { Type: string; Message: unknown; Time: string } | null;
}

export const logAlerts = declareMethod({
  name: 'LogAlerts',
  description:
    "The node's alerts (Lotus raises them for conditions an operator must fix, such as a low file-descriptor limit). This node has no alerting system and raises none, so the list is always empty; problems are in its logs and /health/readyz.",
  permission: 'admin',
  params: [],
  result: jsonResult<AlertJson[]>('alerts', 'Lotus []alerting.Alert', { type: 'array', items: { type: 'object' } }),
  handler: () => [],
});

export const logMethods = [logList, logSetLevel, logAlerts];
