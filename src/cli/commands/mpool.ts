/**
 * `ledger mpool pending|replace`: the node's message pool, printed and driven as Lotus's CLI does
 * (filecoin-project/lotus `cli/mpool.go`).
 */
import { Command, InvalidArgumentError } from 'commander';
import { CID } from 'multiformats/cid';
import { capGasFee, replacementPremium } from '../../mpool/index.js';
import {
  Address,
  jsonField,
  type Message,
  messageFromLotusJson,
  messageToLotusJson,
  parseFil,
  readJsonArray,
  readJsonCid,
  readJsonObject,
  type SignedMessage,
  signedMessageFromLotusJson,
  stringifyJsonLossless,
} from '../../types/index.js';
import { LedgerError } from '../../utils/errors.js';
import { followChannel } from '../follow.js';
import { connectToNode, globalOptions } from '../node-connection.js';

function addressOption(value: string): Address {
  try {
    return Address.fromString(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function bigIntOption(name: string): (value: string) => bigint {
  return (value) => {
    if (!/^\d+$/.test(value))
      throw new InvalidArgumentError(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    return BigInt(value);
  };
}

export class MpoolCliError extends LedgerError {
  constructor(message: string) {
    super('ERR_CLI_MPOOL', message);
  }
}

/** What `mpool pending` prints for one message: Lotus's `json.MarshalIndent(msg, "", "  ")`, or its CID. */
export function formatPending(messages: readonly unknown[], cids: boolean): string {
  return messages
    .map((json) => {
      if (cids) return `${readJsonCid(jsonField(readJsonObject(json, 'SignedMessage'), 'CID'), 'SignedMessage.CID')}\n`;
      return `${stringifyJsonLossless(json, 2)}\n`;
    })
    .join('');
}

/**
 * The replacement `mpool replace` signs: with `auto`, the estimated fees but at least the
 * ReplaceByFeeRatio bump (Lotus `ComputeMinRBF`, filecoin-project/lotus
 * `chain/messagepool/messagepool.go`), capped at the fee limit; otherwise the given values.
 */
export function replacementMessage(
  pending: Message,
  input: {
    auto: boolean;
    replaceByFeeRatio: number;
    estimate?: Message;
    feeLimit?: bigint;
    gasPremium?: bigint;
    gasFeeCap?: bigint;
    gasLimit?: bigint;
  },
): Message {
  if (input.auto) {
    const estimate = input.estimate as Message;
    const bumped = replacementPremium(pending.gasPremium, input.replaceByFeeRatio);
    const gasPremium = estimate.gasPremium > bumped ? estimate.gasPremium : bumped;
    const gasFeeCap = estimate.gasFeeCap > gasPremium ? estimate.gasFeeCap : gasPremium;
    return capGasFee({ ...pending, gasPremium, gasFeeCap }, { maxFee: input.feeLimit ?? 0n });
  }
  if (input.gasPremium === undefined || input.gasFeeCap === undefined) {
    throw new MpoolCliError('give --gas-premium and --gas-feecap, or --auto to have them estimated');
  }
  // The node refuses a premium below the 110 % minimum, naming the premium it needs.
  return {
    ...pending,
    gasLimit: input.gasLimit ?? pending.gasLimit,
    gasPremium: input.gasPremium,
    gasFeeCap: input.gasFeeCap,
  };
}

export function mpoolCommand(): Command {
  const mpool = new Command('mpool').description('Manage the message pool');

  mpool
    .command('pending')
    .description('Get pending messages')
    .option('--local', 'print pending messages for addresses in the local wallet only')
    .option('--cids', 'only print cids of messages in output')
    .option('--to <address>', 'return messages to a given address', addressOption)
    .option('--from <address>', 'return messages from a given address', addressOption)
    .action(async (options: { local?: boolean; cids?: boolean; to?: Address; from?: Address }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const json = await api.MpoolPending(null);
      const local = options.local === true ? new Set(await api.WalletList()) : undefined;
      const shown = readJsonArray(json, 'MpoolPending', (item) => item).filter((item, i) => {
        const { message } = signedMessageFromLotusJson(item, `MpoolPending[${i}]`);
        if (local !== undefined && !local.has(message.from.toString())) return false;
        if (options.to !== undefined && !message.to.equals(options.to)) return false;
        if (options.from !== undefined && !message.from.equals(options.from)) return false;
        return true;
      });
      process.stdout.write(formatPending(shown, options.cids === true));
    });

  mpool
    .command('replace')
    .description('replace a message in the mempool')
    .argument('<fromOrCid>', 'the sender address, or the CID of the pending message')
    .argument('[nonce]', 'the nonce of the message to replace (with a sender address)')
    .option(
      '--gas-feecap <attoFIL>',
      'gas feecap for new message (burn and pay to miner, attoFIL/GasUnit)',
      bigIntOption('gas-feecap'),
    )
    .option(
      '--gas-premium <attoFIL>',
      'gas price for new message (pay to miner, attoFIL/GasUnit)',
      bigIntOption('gas-premium'),
    )
    .option('--gas-limit <gas>', 'gas limit for new message (GasUnit)', bigIntOption('gas-limit'))
    .option('--auto', 'automatically reprice the specified message')
    .option('--fee-limit <FIL>', 'Spend up to X FIL for this message in units of FIL. Applicable for auto mode')
    .action(
      async (
        fromOrCid: string,
        nonceText: string | undefined,
        options: { gasFeecap?: bigint; gasPremium?: bigint; gasLimit?: bigint; auto?: boolean; feeLimit?: string },
        command: Command,
      ) => {
        const api = await connectToNode(globalOptions(command));
        let from: Address;
        let nonce: bigint;
        if (nonceText === undefined) {
          let cid: CID;
          try {
            cid = CID.parse(fromOrCid);
          } catch {
            throw new InvalidArgumentError(
              `expected a message CID, or a sender address and a nonce; got ${JSON.stringify(fromOrCid)}`,
            );
          }
          const message = messageFromLotusJson(await api.ChainGetMessage({ '/': cid.toString() }), 'ChainGetMessage');
          from = message.from;
          nonce = message.nonce;
        } else {
          from = addressOption(fromOrCid);
          if (!/^\d+$/.test(nonceText))
            throw new InvalidArgumentError(`nonce must be an integer, got ${JSON.stringify(nonceText)}`);
          nonce = BigInt(nonceText);
        }

        const pending = readJsonArray(await api.MpoolPending(null), 'MpoolPending', (item, path) =>
          signedMessageFromLotusJson(item, path),
        );
        const found: SignedMessage | undefined = pending.find(
          (signed) => signed.message.from.equals(from) && signed.message.nonce === nonce,
        );
        if (found === undefined) throw new MpoolCliError(`no pending message found from ${from} with nonce ${nonce}`);

        let replacement: Message;
        if (options.auto === true) {
          const feeLimit = options.feeLimit === undefined ? undefined : parseFil(options.feeLimit);
          const spec = feeLimit === undefined ? null : { MaxFee: feeLimit.toString() };
          const estimate = messageFromLotusJson(
            await api.GasEstimateMessageGas(
              messageToLotusJson({ ...found.message, gasFeeCap: 0n, gasPremium: 0n }),
              spec,
              null,
            ),
            'GasEstimateMessageGas',
          );
          const config = await api.MpoolGetConfig();
          const ratio = Math.round(Number(config.ReplaceByFeeRatio) * 100);
          replacement = replacementMessage(found.message, {
            auto: true,
            replaceByFeeRatio: ratio,
            estimate,
            ...(feeLimit === undefined ? {} : { feeLimit }),
          });
        } else {
          replacement = replacementMessage(found.message, {
            auto: false,
            replaceByFeeRatio: 125,
            ...(options.gasPremium === undefined ? {} : { gasPremium: options.gasPremium }),
            ...(options.gasFeecap === undefined ? {} : { gasFeeCap: options.gasFeecap }),
            ...(options.gasLimit === undefined ? {} : { gasLimit: options.gasLimit }),
          });
        }
        const signed = await api.WalletSignMessage(replacement.from.toString(), messageToLotusJson(replacement));
        const cid = await api.MpoolPush(signed);
        process.stdout.write(`new message cid:  ${readJsonCid(cid, 'MpoolPush')}\n`);
      },
    );

  mpool
    .command('sub')
    .description(
      'Follow the message pool over WebSocket (MpoolSub) until Ctrl-C: each update as indented JSON, {"Type": 0 added | 1 removed, "Message": …}',
    )
    .action(async (_options: unknown, command: Command) => {
      // Lotus prints json.MarshalIndent(update, "", "  ") per update (filecoin-project/lotus cli/mpool.go, MpoolSub).
      await followChannel(globalOptions(command), 'MpoolSub', (update) => {
        process.stdout.write(`${stringifyJsonLossless(update, 2)}\n`);
      });
    });

  return mpool;
}
