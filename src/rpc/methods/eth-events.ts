/**
 * The Ethereum JSON-RPC's logs, filters and subscriptions (filecoin-project/lotus
 * `node/impl/eth/events.go`, `subscriptions.go`): eth_getLogs from the log index, polled filters
 * (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges,
 * eth_getFilterLogs, eth_uninstallFilter) and, over WebSocket, eth_subscribe / eth_unsubscribe with
 * `newHeads` (the block the new head executed, its transactions in full), `logs` and
 * `newPendingTransactions`, sent as geth sends them (`eth_subscription` notifications).
 */
import type { EthLogRecord } from '../../db/index.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import { ethSubscriptionResult } from '../channel.js';
import type { ServedContext } from '../context.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors.js';
import { type EthLogJson, ethBlockJson, ethLogJson, ethTipSets } from '../eth-chain.js';
import { ethHashParam, hexData, optionalParam } from '../eth-codecs.js';
import { type CollectedLog, randomEthId } from '../eth-filters.js';
import {
  type EthFilterSpec,
  filterRange,
  filterSpecParam,
  filterSpecSchema,
  findLogs,
  latestHeight,
  logMatches,
  readLogCriteria,
} from '../eth-logs.js';
import { declareMethod, type ParamDeclaration } from '../method.js';
import { jsonResult } from '../results.js';
import { booleanSchema } from '../schemas.js';

const V1 = [1] as const;

type EventsContext = ServedContext<'chain' | 'eth'>;

const logSchema = { title: 'EthLog', type: 'object' } as const;
const filterIdSchema = { title: 'EthFilterID', type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } as const;
/** Lotus `EthFilterResult`: logs, or block or transaction hashes. */
const filterResult = jsonResult<Array<EthLogJson | string>>('result', 'the logs, or block or transaction hashes', {
  title: 'EthFilterResult',
  type: 'array',
  items: { oneOf: [logSchema, filterIdSchema] },
});
const filterIdResult = jsonResult<string>('filterId', 'the filter id', filterIdSchema);

const filterIdParam = ethHashParam('filterId', 'the filter id');
const specParam = filterSpecParam(
  'filter',
  'fromBlock/toBlock ("latest", "earliest" or hex; at most 2880 epochs apart) or blockHash, address (one or a list), topics (at most 4 positions: null, a hash or a list of hashes)',
);

const logsJson = (logs: readonly EthLogRecord[]) => logs.map((log) => ethLogJson(log));

export const ethGetLogs = declareMethod({
  name: 'EthGetLogs',
  description:
    'The logs a filter matches on the canonical chain, in (block, log index) order; a range over 2880 epochs is error -32005, a block at or above the head has no logs yet (an error), and over 10000 logs spanning several blocks is an error.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getLogs'],
  needs: ['chain', 'eth'],
  expensive: true,
  params: [specParam],
  result: filterResult,
  handler: ([spec], context) => logsJson(findLogs(context, spec)),
});

/** A logs filter over the heights its spec names, holding at first the logs they already have (as Lotus prefills it). */
function installLogsFilter(context: EventsContext, spec: EthFilterSpec): string {
  const tipSets = ethTipSets(context);
  const latest = latestHeight(tipSets.head);
  let range: { min: bigint; max: bigint | undefined };
  if (spec.blockHash === null) {
    // eth_getLogs's range checks; an end in the future is allowed: the filter waits for it.
    range = filterRange(spec, latest);
  } else {
    const tipSet = tipSets.byHash(spec.blockHash);
    if (tipSet === undefined) {
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `cannot find tipset with hash ${hexData(spec.blockHash)}`);
    }
    range = { min: tipSet.height, max: tipSet.height };
  }
  const end = range.max === undefined || range.max > latest ? latest : range.max;
  const held = tipSets.head.height > 0n && range.min <= end;
  const initial = !held
    ? []
    : findLogs(
        context,
        spec.blockHash === null
          ? { ...spec, fromBlock: { kind: 'height', height: range.min }, toBlock: { kind: 'height', height: end } }
          : spec,
      );
  return context.eth.filters.install('logs', {
    spec,
    minHeight: range.min,
    ...(range.max === undefined ? {} : { maxHeight: range.max }),
    initial,
  });
}

export const ethNewFilter = declareMethod({
  name: 'EthNewFilter',
  description:
    'Installs a log filter (the criteria of eth_getLogs); eth_getFilterChanges then answers the matching logs of blocks executed since the last poll (those its range already held first). At most 100 filters exist; one not polled for an hour is removed.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_newFilter'],
  needs: ['chain', 'eth'],
  params: [specParam],
  result: filterIdResult,
  handler: ([spec], context) => installLogsFilter(context, spec),
});

export const ethNewBlockFilter = declareMethod({
  name: 'EthNewBlockFilter',
  description: 'Installs a filter of new blocks: eth_getFilterChanges answers the hashes of the tipsets applied since.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_newBlockFilter'],
  needs: ['eth'],
  params: [],
  result: filterIdResult,
  handler: (_params, context) => context.eth.filters.install('blocks'),
});

export const ethNewPendingTransactionFilter = declareMethod({
  name: 'EthNewPendingTransactionFilter',
  description:
    'Installs a filter of pending transactions: eth_getFilterChanges answers the hashes of messages added to the message pool since.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_newPendingTransactionFilter'],
  needs: ['eth'],
  params: [],
  result: filterIdResult,
  handler: (_params, context) => context.eth.filters.install('pending'),
});

function collectedJson(collected: ReadonlyArray<CollectedLog | Uint8Array>): Array<EthLogJson | string> {
  return collected.map((value) =>
    value instanceof Uint8Array ? hexData(value) : ethLogJson(value.log, value.removed),
  );
}

export const ethGetFilterChanges = declareMethod({
  name: 'EthGetFilterChanges',
  description:
    'What a filter collected since it was last polled: logs (reverted ones with removed: true), block hashes or transaction hashes; an error for an unknown filter.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getFilterChanges'],
  needs: ['eth'],
  params: [filterIdParam],
  result: filterResult,
  handler: ([id], context) => collectedJson(context.eth.filters.take(hexData(id)).collected),
});

export const ethGetFilterLogs = declareMethod({
  name: 'EthGetFilterLogs',
  description:
    'The logs a log filter collected since it was last polled, as Lotus answers it (eth_getFilterChanges for log filters); an error for other filters.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getFilterLogs'],
  needs: ['eth'],
  params: [filterIdParam],
  result: filterResult,
  handler: ([id], context) => {
    // A block or transaction filter is refused before anything is taken from it.
    return collectedJson(context.eth.filters.take(hexData(id), 'logs').collected);
  },
});

export const ethUninstallFilter = declareMethod({
  name: 'EthUninstallFilter',
  description: 'Removes a filter: true, or false when there was none by that id.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_uninstallFilter'],
  needs: ['eth'],
  params: [filterIdParam],
  result: jsonResult<boolean>('removed', 'whether a filter was removed', booleanSchema),
  handler: ([id], context) => context.eth.filters.uninstall(hexData(id)),
});

/** The kinds of eth_subscribe (Lotus `EthSubscribeEventType…`). */
const SUBSCRIPTION_KINDS = ['newHeads', 'logs', 'newPendingTransactions'] as const;
type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

const subscriptionKindParam: ParamDeclaration<SubscriptionKind, string> = {
  name: 'eventType',
  description: '"newHeads", "logs" or "newPendingTransactions"',
  schema: { type: 'string', enum: [...SUBSCRIPTION_KINDS] },
  decode: (json, path) => {
    const kind = SUBSCRIPTION_KINDS.find((k) => k === json);
    if (kind === undefined) {
      if (typeof json !== 'string')
        throw new InvalidArgumentError(`${path}: expected an event type, got ${JSON.stringify(json)}`);
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `unsupported event type: ${json}`);
    }
    return kind;
  },
};

const criteriaParam: ParamDeclaration<EthFilterSpec, object> = {
  name: 'params',
  description: 'for "logs": {address, topics}',
  schema: {
    type: 'object',
    properties: { address: filterSpecSchema.properties.address, topics: filterSpecSchema.properties.topics },
  },
  decode: readLogCriteria,
};

/** Lotus's subscription send queue (`maxSendQueue`): a client this far behind loses its subscription. */
const SUBSCRIPTION_BUFFER = 20_000;

export const ethSubscribe = declareMethod({
  name: 'EthSubscribe',
  description:
    'WebSocket only: subscribes to "newHeads" (each block the new head executed, transactions in full), "logs" (matching {address, topics}; reverted ones with removed: true) or "newPendingTransactions" (hashes). Answers the subscription id; values come as eth_subscription notifications {subscription, result}.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_subscribe'],
  needs: ['chain', 'eth'],
  params: [subscriptionKindParam, optionalParam(criteriaParam)],
  result: ethSubscriptionResult(jsonResult<unknown>('value', 'blocks, logs or transaction hashes', {}), {
    buffer: SUBSCRIPTION_BUFFER,
  }),
  handler: ([kind, criteria], context) => {
    const id = randomEthId();
    return {
      id,
      source: (sink) => {
        context.eth.subscriptions.add(id, sink);
        let lastParent: string | undefined;
        // Blocks are built asynchronously: a queue keeps them in head order.
        let blocks = Promise.resolve();
        const unlisten = context.eth.events.listen((event) => {
          if (kind === 'newHeads' && event.kind === 'apply' && event.tipSet.height > 0n) {
            const parentKey = event.tipSet.parents.toString();
            if (parentKey === lastParent) return;
            lastParent = parentKey;
            const parent = context.chain.store.loadTipSet(event.tipSet.parents);
            blocks = blocks
              .then(() => ethBlockJson(context.chain, parent, true, context.eth.index))
              .then((block) => sink.send(block))
              .catch(() => undefined);
          } else if (kind === 'logs' && event.kind === 'logs') {
            for (const log of event.logs) {
              if (criteria === null || logMatches(criteria, log)) sink.send(ethLogJson(log, event.removed));
            }
          } else if (kind === 'newPendingTransactions' && event.kind === 'pending') {
            sink.send(hexData(event.hash));
          }
        }, kind === 'logs');
        sink.signal.addEventListener('abort', unlisten, { once: true });
      },
    };
  },
});

export const ethUnsubscribe = declareMethod({
  name: 'EthUnsubscribe',
  description: 'Ends a subscription: true, or false when there was none by that id.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_unsubscribe'],
  needs: ['eth'],
  params: [ethHashParam('id', 'the subscription id')],
  result: jsonResult<boolean>('removed', 'whether a subscription ended', booleanSchema),
  handler: ([id], context) => context.eth.subscriptions.remove(hexData(id)),
});

export const ethEventMethods = [
  ethGetLogs,
  ethNewFilter,
  ethNewBlockFilter,
  ethNewPendingTransactionFilter,
  ethGetFilterChanges,
  ethGetFilterLogs,
  ethUninstallFilter,
  ethSubscribe,
  ethUnsubscribe,
] as const;
