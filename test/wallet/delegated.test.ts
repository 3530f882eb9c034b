/**
 * Delegated (Ethereum) keys in the wallet, checked against ethers as an independent Ethereum
 * implementation: the f410 address of a key, raw signing over keccak-256 (Lotus
 * `lib/sigs/delegated`), messages signed as the EIP-1559 transactions MetaMask would sign, the Lotus
 * KeyInfo JSON round trip and the refusals.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  computeAddress,
  Signature as EthersSignature,
  Wallet as EthersWallet,
  keccak256,
  SigningKey,
  Transaction,
} from 'ethers';
import {
  Address,
  ethAddressFromAddress,
  isEthAddress,
  type Message,
  SignatureType,
  setDefaultNetwork,
  verifyDelegatedSignature,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { EVM_INVOKE_CONTRACT_METHOD } from '../../src/vm/index.js';
import {
  Keystore,
  KeyType,
  keyInfoFromLotusJson,
  keyInfoToLotusJson,
  verifySignature,
  Wallet,
  WalletError,
  WalletErrorCode,
} from '../../src/wallet/index.js';
import { PARAMS } from '../helpers/genesis.js';

/** Hardhat's and Anvil's first default account: a published key and its address. */
const HARDHAT_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const HARDHAT_ADDRESS = 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CHAIN_ID = PARAMS.eip155ChainId;

let directory: string;
let wallet: Wallet;

beforeEach(() => {
  setDefaultNetwork('t');
  directory = mkdtempSync(join(tmpdir(), 'ledger-wallet-eth-'));
  wallet = new Wallet(new Keystore(join(directory, 'keystore')), { eip155ChainId: CHAIN_ID });
});
afterEach(() => {
  setDefaultNetwork('f');
  rmSync(directory, { recursive: true, force: true });
});

const hex = (bytes: Uint8Array) => `0x${toHex(bytes)}`;

/** The 65-byte r ‖ s ‖ yParity of an ethers signature: the form of a Filecoin delegated signature. */
function signatureBytes(signature: EthersSignature): string {
  return `${signature.r}${signature.s.slice(2)}${signature.yParity === 0 ? '00' : '01'}`;
}

function transferFrom(from: Address, fields: Partial<Message> = {}): Message {
  return {
    from,
    to: Address.newDelegated(10n, fromHex(HARDHAT_ADDRESS)),
    nonce: 7n,
    value: 1_500_000_000_000_000_000n,
    gasLimit: 2_000_000n,
    gasFeeCap: 1_000_000_000n,
    gasPremium: 1_000_000n,
    method: EVM_INVOKE_CONTRACT_METHOD,
    params: new Uint8Array(0),
    ...fields,
  };
}

describe('delegated keys', () => {
  test('the address of a key is the f410 of its Ethereum address (Hardhat account #0)', () => {
    const address = wallet.import({ type: KeyType.Delegated, privateKey: fromHex(HARDHAT_KEY) });
    expect(isEthAddress(address)).toBe(true);
    expect(ethAddressFromAddress(address)).toBe(`0x${HARDHAT_ADDRESS}`);
    expect(address.equals(Address.newDelegated(10n, fromHex(HARDHAT_ADDRESS)))).toBe(true);
    expect(address.toString()).toMatch(/^t410f[a-z2-7]{39}$/);
  });

  test('WalletNew("delegated") makes a key whose address ethers derives from its exported private key', () => {
    const address = wallet.newKey(KeyType.Delegated);
    const keyInfo = wallet.export(address);
    expect(keyInfo.type).toBe('delegated');
    expect(ethAddressFromAddress(address)).toBe(computeAddress(hex(keyInfo.privateKey)).toLowerCase());
    expect(wallet.list().map(String)).toEqual([address.toString()]);
    expect(wallet.has(address)).toBe(true);
    expect(wallet.defaultAddress().equals(address)).toBe(true);
  });

  test('the keystore holds Lotus KeyInfo JSON; export and import round-trip through it', () => {
    const address = wallet.newKey(KeyType.Delegated);
    const json = keyInfoToLotusJson(wallet.export(address));
    expect(json).toEqual({ Type: 'delegated', PrivateKey: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) });
    const files = readdirSync(join(directory, 'keystore')).map((file) =>
      JSON.parse(readFileSync(join(directory, 'keystore', file), 'utf8')),
    );
    expect(files).toContainEqual(json);

    const other = new Wallet(new Keystore(join(directory, 'other')));
    const imported = other.import(keyInfoFromLotusJson(JSON.parse(JSON.stringify(json))));
    expect(imported.equals(address)).toBe(true);
    // Lotus's numeric key type 3 reads as delegated too.
    const numeric = keyInfoFromLotusJson({ Type: 3, PrivateKey: Buffer.from(HARDHAT_KEY, 'hex').toString('base64') });
    expect(numeric.type).toBe(KeyType.Delegated);
  });

  test('WalletSign signs keccak-256 of the data; ethers recovers the key; WalletVerify agrees', () => {
    const address = wallet.import({ type: KeyType.Delegated, privateKey: fromHex(HARDHAT_KEY) });
    const data = new TextEncoder().encode('ledger-node delegated signing');
    const signature = wallet.sign(address, data);
    expect(signature.type).toBe(SignatureType.Delegated);
    expect(signature.data).toHaveLength(65);
    const recovered = SigningKey.recoverPublicKey(
      keccak256(data),
      EthersSignature.from({
        r: hex(signature.data.subarray(0, 32)),
        s: hex(signature.data.subarray(32, 64)),
        v: 27 + (signature.data[64] as number),
      }),
    );
    expect(computeAddress(recovered).toLowerCase()).toBe(`0x${HARDHAT_ADDRESS}`);

    expect(verifySignature(address, data, signature)).toBe(true);
    expect(verifySignature(address, new TextEncoder().encode('other data'), signature)).toBe(false);
    expect(verifySignature(wallet.newKey(KeyType.Delegated), data, signature)).toBe(false);
    expect(verifySignature(wallet.newKey(KeyType.Secp256k1), data, signature)).toBe(false);
    expect(verifySignature(address, data, { type: SignatureType.Delegated, data: signature.data.subarray(1) })).toBe(
      false,
    );
    expect(verifySignature(address, data, { ...signature, type: SignatureType.Secp256k1 })).toBe(false);
  });

  test('WalletSignMessage signs the EIP-1559 transaction ethers signs for the same fields', async () => {
    const address = wallet.import({ type: KeyType.Delegated, privateKey: fromHex(HARDHAT_KEY) });
    const message = transferFrom(address);
    const signed = wallet.signMessage(address, message);
    expect(signed.message).toBe(message);
    expect(signed.signature.type).toBe(SignatureType.Delegated);
    expect(() => verifyDelegatedSignature(signed, CHAIN_ID)).not.toThrow();

    const serialized = await new EthersWallet(`0x${HARDHAT_KEY}`).signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: Number(message.nonce),
      maxFeePerGas: message.gasFeeCap,
      maxPriorityFeePerGas: message.gasPremium,
      gasLimit: message.gasLimit,
      to: `0x${HARDHAT_ADDRESS}`,
      value: message.value,
      data: '0x',
    });
    const ethersSignature = Transaction.from(serialized).signature as EthersSignature;
    expect(hex(signed.signature.data)).toBe(signatureBytes(ethersSignature));
  });

  test('a message with no Ethereum form, or a wallet without a chain id, is a clear refusal', () => {
    const address = wallet.newKey(KeyType.Delegated);
    const refusal = (fn: () => unknown): WalletError => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(WalletError);
        return error as WalletError;
      }
      throw new Error('signed');
    };
    const plainSend = refusal(() => wallet.signMessage(address, transferFrom(address, { method: 0n })));
    expect(plainSend.code).toBe(WalletErrorCode.CannotSign);
    expect(plainSend.message).toContain(`signing a message from ${address} as an Ethereum transaction`);

    const keystore = new Keystore(join(directory, 'keystore'));
    const noChain = refusal(() => new Wallet(keystore).signMessage(address, transferFrom(address)));
    expect(noChain.code).toBe(WalletErrorCode.CannotSign);
    expect(noChain.message).toContain("does not know the network's EIP-155 chain id");
  });
});
