/**
 * `ledger wallet …`: the node's wallet over RPC, with Lotus's CLI arguments and output formats
 * (`lotus:cli/wallet.go`). Balance, nonce and ID columns of `wallet list` come with chain state.
 */
import { Command, Option } from 'commander';
import {
  type Address,
  bigIntFromLotusJson,
  formatFil,
  type Signature,
  signatureFromLotusJson,
  signatureToLotusJson,
} from '../../types/index.js';
import { fromHex, toBase64, toHex } from '../../utils/bytes.js';
import { InvalidArgumentError, LedgerError } from '../../utils/errors.js';
import { type KeyInfo, KeyType, keyInfoFromLotusJson, keyInfoToLotusJson } from '../../wallet/index.js';
import { choiceParser, parseAddressArgument, parseHexArgument, parseSignatureArgument } from '../arguments.js';
import { readSecretInput } from '../input.js';
import { connectToNode, globalOptions, repoFromOptions } from '../node-connection.js';
import { renderTable } from '../table.js';

const KEY_FORMATS = ['hex-lotus', 'json-lotus', 'hex-eth'] as const;
type KeyFormat = (typeof KEY_FORMATS)[number];
/** The key types a raw (hex-eth) secp256k1 private key can be: an Ethereum (f410) key or an f1 key. */
const ETH_KEY_TYPES: readonly KeyType[] = [KeyType.Delegated, KeyType.Secp256k1];

/** FRC-0102: what `wallet sign` and `wallet verify` wrap the bytes in unless `--raw`. */
export function frc0102Envelope(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Filecoin Signed Message:\n${message.length}`);
  const out = new Uint8Array(prefix.length + message.length);
  out.set(prefix);
  out.set(message, prefix.length);
  return out;
}

function encodeKeyInfo(keyInfo: KeyInfo, format: KeyFormat): string {
  const json = JSON.stringify(keyInfoToLotusJson(keyInfo));
  switch (format) {
    case 'hex-lotus':
      return toHex(new TextEncoder().encode(json));
    case 'json-lotus':
      return json;
    case 'hex-eth':
      if (!ETH_KEY_TYPES.includes(keyInfo.type)) {
        throw new InvalidArgumentError(`hex-eth format requires a secp256k1 or delegated key, got: ${keyInfo.type}`);
      }
      return `0x${toHex(keyInfo.privateKey)}`;
  }
}

function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`${what} is not JSON: ${(error as Error).message}`);
  }
}

function decodeKeyInfo(input: string, format: KeyFormat, ethKeyType: KeyType): KeyInfo {
  const text = input.trim();
  switch (format) {
    case 'hex-lotus': {
      let bytes: Uint8Array;
      try {
        bytes = fromHex(text);
      } catch (error) {
        throw new InvalidArgumentError(`the key is not hex: ${(error as Error).message}`);
      }
      return keyInfoFromLotusJson(parseJsonText(new TextDecoder().decode(bytes), 'the hex-decoded key'));
    }
    case 'json-lotus':
      return keyInfoFromLotusJson(parseJsonText(text, 'the key'));
    case 'hex-eth': {
      const privateKey = (() => {
        try {
          return fromHex(text.replace(/^0x/i, ''));
        } catch (error) {
          throw new InvalidArgumentError(`decoding hex private key: ${(error as Error).message}`);
        }
      })();
      if (privateKey.length !== 32) {
        throw new InvalidArgumentError(`expected 32-byte private key, got ${privateKey.length} bytes`);
      }
      return { type: ethKeyType, privateKey };
    }
  }
}

export function walletCommand(): Command {
  const wallet = new Command('wallet').description('Manage the wallet of a running node');

  wallet
    .command('new')
    .description('Generate a new key of the given type (default secp256k1) and print its address')
    .argument(
      '[type]',
      'bls, secp256k1 or delegated (an Ethereum key: its address is f410f…)',
      choiceParser([KeyType.BLS, KeyType.Secp256k1, KeyType.Delegated]),
      KeyType.Secp256k1,
    )
    .action(async (type: KeyType, _options, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const address = await api.WalletNew(type);
      process.stdout.write(`${address}\n`);
    });

  wallet
    .command('list')
    .description('List the addresses of the wallet; X marks the default')
    .option('-a, --addr-only', 'print only the addresses')
    .option('--json', 'print JSON: [{"address", "default"}]')
    .action(async (options: { addrOnly?: boolean; json?: boolean }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const addresses = await api.WalletList();
      // As in Lotus, an error here means there is no default key.
      const defaultAddress = await api.WalletDefaultAddress().catch(() => undefined);
      const isDefault = (address: string) => address === defaultAddress;
      if (options.json === true) {
        const entries = addresses.map((address) => ({ address, default: isDefault(address) }));
        process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      } else if (options.addrOnly === true) {
        for (const address of addresses) process.stdout.write(`${address}\n`);
      } else {
        const rows = addresses.map((address) =>
          isDefault(address) ? { Address: address, Default: 'X' } : { Address: address },
        );
        process.stdout.write(renderTable(['Address', 'Default'], rows));
      }
    });

  wallet
    .command('default')
    .description('Print the default address')
    .action(async (_options, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      process.stdout.write(`${await api.WalletDefaultAddress()}\n`);
    });

  wallet
    .command('set-default')
    .description('Make an address of the wallet the default')
    .argument('<address>', 'the new default address', parseAddressArgument)
    .action(async (address: Address, _options, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      await api.WalletSetDefault(address.toString());
      process.stdout.write(`Default address set to: ${address}\n`);
    });

  wallet
    .command('export')
    .description("Print an address's private key (keep the output secret)")
    .argument('<address>', 'an address of the wallet', parseAddressArgument)
    .addOption(
      new Option(
        '--format <format>',
        'hex-lotus (hex of the KeyInfo JSON), json-lotus, or hex-eth (0x… raw private key, as MetaMask shows it; secp256k1 and delegated keys)',
      )
        .choices(KEY_FORMATS)
        .default('hex-lotus'),
    )
    .action(async (address: Address, options: { format: KeyFormat }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const keyInfo = keyInfoFromLotusJson(await api.WalletExport(address.toString()), 'WalletExport');
      process.stdout.write(`${encodeKeyInfo(keyInfo, options.format)}\n`);
    });

  wallet
    .command('import')
    .description('Import a private key from a file, or from standard input')
    .argument('[path]', 'file holding the key; standard input when absent or -')
    .addOption(
      new Option(
        '--format <format>',
        'hex-lotus (hex of the KeyInfo JSON), json-lotus, or hex-eth (a raw private key in hex, 0x optional, as MetaMask exports it)',
      )
        .choices(KEY_FORMATS)
        .default('hex-lotus'),
    )
    .addOption(
      new Option('--type <type>', 'key type of a hex-eth key: delegated (an f410 Ethereum account) or secp256k1 (f1)')
        .choices(ETH_KEY_TYPES)
        .default(KeyType.Delegated),
    )
    .option('--as-default', 'make the imported key the default')
    .action(
      async (
        path: string | undefined,
        options: { format: KeyFormat; type: KeyType; asDefault?: boolean },
        command: Command,
      ) => {
        const keyInfo = decodeKeyInfo(await readSecretInput(path), options.format, options.type);
        const api = await connectToNode(globalOptions(command));
        const address = await api.WalletImport(keyInfoToLotusJson(keyInfo));
        if (options.asDefault === true) await api.WalletSetDefault(address);
        process.stdout.write(`imported key ${address} successfully!\n`);
      },
    );

  wallet
    .command('sign')
    .description('Sign hex bytes; prints the signature as hex (type byte, then signature)')
    .argument('<address>', 'the signing address', parseAddressArgument)
    .argument('<hexMessage>', 'the bytes to sign, hex', parseHexArgument)
    .option('--raw', 'sign the bytes as they are, without the FRC-0102 envelope (not recommended)')
    .action(async (address: Address, message: Uint8Array, options: { raw?: boolean }, command: Command) => {
      const data = options.raw === true ? message : frc0102Envelope(message);
      const api = await connectToNode(globalOptions(command));
      const signature = signatureFromLotusJson(await api.WalletSign(address.toString(), toBase64(data)), 'WalletSign');
      process.stdout.write(`${toHex(Uint8Array.of(signature.type))}${toHex(signature.data)}\n`);
    });

  wallet
    .command('verify')
    .description('Check a signature made by `wallet sign`; prints valid or invalid (exit code 1)')
    .argument('<address>', 'the address that should have signed', parseAddressArgument)
    .argument('<hexMessage>', 'the signed bytes, hex', parseHexArgument)
    .argument('<signature>', 'the signature, hex (type byte, then signature)', parseSignatureArgument)
    .option('--raw', 'verify the bytes as they are, without the FRC-0102 envelope')
    .action(
      async (
        address: Address,
        message: Uint8Array,
        signature: Signature,
        options: { raw?: boolean },
        command: Command,
      ) => {
        const data = options.raw === true ? message : frc0102Envelope(message);
        const api = await connectToNode(globalOptions(command));
        const valid = await api.WalletVerify(address.toString(), toBase64(data), signatureToLotusJson(signature));
        process.stdout.write(valid ? 'valid\n' : 'invalid\n');
        if (!valid) throw new LedgerError('ERR_INVALID_SIGNATURE', 'CLI Verify called with invalid signature');
      },
    );

  wallet
    .command('delete')
    .description('Soft-delete an address: its key moves to trash-<address> in the keystore')
    .argument('<address>', 'the address to delete', parseAddressArgument)
    .action(async (address: Address, _options, command: Command) => {
      const options = globalOptions(command);
      const api = await connectToNode(options);
      await api.WalletDelete(address.toString());
      process.stdout.write(`Soft deleting address: ${address}\n`);
      process.stdout.write(
        `Hard deletion of the address in \`${repoFromOptions(options).keystoreDirectory}\` is needed for permanent removal\n`,
      );
    });

  wallet
    .command('balance')
    .description('Print the balance of an address (default: the wallet default) as Lotus does, e.g. "10000 FIL"')
    .argument('[address]', 'the address (default: the wallet default address)', parseAddressArgument)
    .action(async (address: Address | undefined, _options, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const target = address?.toString() ?? (await api.WalletDefaultAddress());
      const balance = await api.WalletBalance(target);
      process.stdout.write(`${formatFil(bigIntFromLotusJson(balance, 'WalletBalance'))}\n`);
    });

  return wallet;
}
