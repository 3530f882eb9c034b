/**
 * Ethereum addresses ↔ Filecoin addresses, as Lotus ethtypes maps them: an Ethereum account or
 * contract lives at `f410f…` (delegated, namespace 10 = the Ethereum Address Manager actor, 20-byte
 * subaddress), and an ID address f0N has the "masked ID" form `0xff || 00×11 || uint64_be(N)`.
 */
import { bytesEqual, fromHex, toHex } from '../utils/bytes.js';
import { Address, AddressProtocol } from './address.js';
import { AddressError, AddressErrorCode } from './errors.js';

export const ETHEREUM_ADDRESS_MANAGER_ACTOR_ID = 10n;
const ETH_ADDRESS_LENGTH = 20;
const MASKED_ID_PREFIX = Uint8Array.of(0xff, ...new Uint8Array(11));

function isMaskedId(bytes: Uint8Array): boolean {
  return bytesEqual(bytes.subarray(0, MASKED_ID_PREFIX.length), MASKED_ID_PREFIX);
}

/** True for f410 addresses that hold a real (not masked-ID) 20-byte Ethereum address (Lotus `IsEthAddress`). */
export function isEthAddress(address: Address): boolean {
  if (address.protocol !== AddressProtocol.Delegated) return false;
  const { namespace, subaddress } = address.delegated();
  return (
    namespace === ETHEREUM_ADDRESS_MANAGER_ACTOR_ID &&
    subaddress.length === ETH_ADDRESS_LENGTH &&
    !isMaskedId(subaddress)
  );
}

/** The `0x…` (lower-case hex) form of an f410 Ethereum address or of an ID address (masked ID). */
export function ethAddressFromAddress(address: Address): string {
  return `0x${toHex(ethAddressBytesFromAddress(address))}`;
}

/** The 20 bytes of an f410 Ethereum address or of an ID address (masked ID) (Lotus `EthAddressFromFilecoinAddress`). */
export function ethAddressBytesFromAddress(address: Address): Uint8Array {
  if (address.protocol === AddressProtocol.ID) {
    const bytes = new Uint8Array(ETH_ADDRESS_LENGTH);
    bytes.set(MASKED_ID_PREFIX);
    new DataView(bytes.buffer).setBigUint64(MASKED_ID_PREFIX.length, address.id());
    return bytes;
  }
  if (isEthAddress(address)) return Uint8Array.from(address.delegated().subaddress);
  const reason =
    address.protocol === AddressProtocol.Delegated
      ? 'is not a 20-byte namespace-10 address or embeds a masked ID'
      : `has protocol ${address.protocol}, which has no Ethereum form`;
  throw new AddressError(AddressErrorCode.NotEthAddress, `${address} ${reason}`);
}

/** The Filecoin address of a `0x…` Ethereum address: f0N for a masked ID, else f410f…. */
export function addressFromEthAddress(ethAddress: string): Address {
  const hex = ethAddress.replace(/^0[xX]/, '');
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) {
    throw new AddressError(
      AddressErrorCode.NotEthAddress,
      `${JSON.stringify(ethAddress)} is not an Ethereum address (20 bytes as 40 hex digits)`,
    );
  }
  return addressFromEthAddressBytes(fromHex(hex));
}

/** The Filecoin address of 20 Ethereum address bytes: f0N for a masked ID, else f410f… (Lotus `ToFilecoinAddress`). */
export function addressFromEthAddressBytes(bytes: Uint8Array): Address {
  if (bytes.length !== ETH_ADDRESS_LENGTH) {
    throw new AddressError(
      AddressErrorCode.NotEthAddress,
      `an Ethereum address has ${ETH_ADDRESS_LENGTH} bytes, got ${bytes.length}`,
    );
  }
  if (isMaskedId(bytes)) {
    return Address.newId(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(MASKED_ID_PREFIX.length));
  }
  return Address.newDelegated(ETHEREUM_ADDRESS_MANAGER_ACTOR_ID, bytes);
}
