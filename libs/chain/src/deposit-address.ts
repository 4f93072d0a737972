// Deposit addresses from an extended PUBLIC key (BIP32): the service can derive every session's address but
// spend from none; the private key that sweeps them stays offline with the operator.
import { HDKey } from '@scure/bip32';
import { getAddress, keccak256, toHex } from 'viem';

/** Base58 prefixes of extended private keys (BIP32/49/84 and their test networks): refused wherever a key is read. */
const PRIVATE_PREFIXES = ['xprv', 'tprv', 'yprv', 'zprv', 'uprv', 'vprv', 'Yprv', 'Zprv', 'Uprv', 'Vprv'];
/** Version bytes of the public keys accepted: mainnet xpub and testnet tpub (wallets export Ethereum keys as either). */
const VERSIONS = [
  { private: 0x0488ade4, public: 0x0488b21e },
  { private: 0x04358394, public: 0x043587cf },
];
/** The account level m/44'/60'/0': the addresses are then its external chain m/44'/60'/0'/0/i, as wallets derive them. */
export const ACCOUNT_KEY_DEPTH = 3;

/** Why `key` is not a usable account-level extended public key, or null when it is. */
export function extendedPublicKeyProblem(key: string): string | null {
  if (PRIVATE_PREFIXES.some((p) => key.startsWith(p))) {
    return 'is an extended PRIVATE key: give the account\'s extended public key (xpub…); no private key belongs on the server';
  }
  const parsed = parseExtendedPublicKey(key);
  if (!parsed) return 'is not a valid BIP32 extended public key (xpub… or tpub…)';
  if (parsed.privateKey) return 'holds a private key: give the account\'s extended public key (xpub…)';
  if (parsed.depth !== ACCOUNT_KEY_DEPTH) {
    return `must be the account-level key (depth ${ACCOUNT_KEY_DEPTH}, m/44'/60'/0'), got a key of depth ${parsed.depth}`;
  }
  return null;
}

function parseExtendedPublicKey(key: string): HDKey | null {
  for (const versions of VERSIONS) {
    try {
      return HDKey.fromExtendedKey(key, versions);
    } catch {
      // another version, or not a key at all
    }
  }
  return null;
}

const parsedKeys = new Map<string, HDKey>();
function externalChainOf(xpub: string): HDKey {
  let external = parsedKeys.get(xpub);
  if (!external) {
    const problem = extendedPublicKeyProblem(xpub);
    if (problem) throw new Error(`the deposit key ${problem}`);
    external = parseExtendedPublicKey(xpub)!.deriveChild(0);
    parsedKeys.set(xpub, external);
  }
  return external;
}

/** The EIP-55 address of child `0/index` of the account-level `xpub` (non-hardened, so no private key is needed). */
export function deriveDepositAddress(xpub: string, index: number): `0x${string}` {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) {
    throw new RangeError(`a deposit address index must be an integer from 0 to 2^31 - 1 (got ${index})`);
  }
  const child = externalChainOf(xpub).deriveChild(index);
  const uncompressed = decompress(child.publicKey!);
  // An Ethereum address is the last 20 bytes of keccak256 over the 64-byte public point (without the 0x04 prefix).
  return getAddress(`0x${keccak256(toHex(uncompressed.subarray(1))).slice(-40)}`);
}

// secp256k1: y² = x³ + 7 over the field of P. P ≡ 3 (mod 4), so a square root is a power (P + 1) / 4.
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

function powMod(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** A compressed public key (33 bytes, 02/03 ‖ x) as the uncompressed point (65 bytes, 04 ‖ x ‖ y). */
function decompress(compressed: Uint8Array): Uint8Array {
  if (compressed.length !== 33 || (compressed[0] !== 2 && compressed[0] !== 3)) throw new Error('not a compressed secp256k1 public key');
  const x = BigInt(toHex(compressed.subarray(1)));
  let y = powMod((powMod(x, 3n, P) + 7n) % P, (P + 1n) / 4n, P);
  if ((y & 1n) !== BigInt(compressed[0]! & 1)) y = P - y;
  const out = new Uint8Array(65);
  out[0] = 4;
  out.set(compressed.subarray(1), 1);
  out.set(hexToBytes32(y), 33);
  return out;
}

function hexToBytes32(n: bigint): Uint8Array {
  const hex = n.toString(16).padStart(64, '0');
  return Uint8Array.from({ length: 32 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}
