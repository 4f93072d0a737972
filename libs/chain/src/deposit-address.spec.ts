import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { HDKey, hdKeyToAccount, mnemonicToAccount } from 'viem/accounts';
import { deriveDepositAddress, extendedPublicKeyProblem } from './index';

// The wallet side, with viem's HD tools: what the operator's offline key derives and can spend from.
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

function accountXpub(master: HDKey): string {
  return master.derive("m/44'/60'/0'").publicExtendedKey;
}

describe('deposit addresses from an extended public key', () => {
  it('equal the addresses of the private keys at m/44\'/60\'/0\'/0/i', () => {
    for (let wallet = 0; wallet < 3; wallet++) {
      const master = HDKey.fromMasterSeed(randomBytes(32));
      const xpub = accountXpub(master);
      for (const index of [0, 1, 2, 7, 1000, 2 ** 31 - 1]) {
        expect(deriveDepositAddress(xpub, index)).toBe(hdKeyToAccount(master, { accountIndex: 0, addressIndex: index }).address);
      }
    }
  });

  it('match a well-known wallet (anvil\'s development mnemonic)', () => {
    const account0 = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
    expect(account0.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    const master = HDKey.fromMasterSeed(seedOf(ANVIL_MNEMONIC));
    expect(deriveDepositAddress(accountXpub(master), 0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(deriveDepositAddress(accountXpub(master), 1)).toBe(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 }).address);
  });

  it('are EIP-55 checksummed, distinct per index and stable', () => {
    const xpub = accountXpub(HDKey.fromMasterSeed(randomBytes(32)));
    const addresses = Array.from({ length: 50 }, (_, i) => deriveDepositAddress(xpub, i));
    expect(new Set(addresses.map((a) => a.toLowerCase())).size).toBe(50);
    for (const a of addresses) expect(a).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(addresses.some((a) => a !== a.toLowerCase())).toBe(true);
    expect(deriveDepositAddress(xpub, 3)).toBe(addresses[3]);
  });

  it('refuse private keys, other depths, garbage and bad indexes', () => {
    const master = HDKey.fromMasterSeed(randomBytes(32));
    const account = master.derive("m/44'/60'/0'");
    expect(extendedPublicKeyProblem(account.publicExtendedKey)).toBeNull();
    expect(extendedPublicKeyProblem(account.privateExtendedKey)).toMatch(/PRIVATE key/);
    expect(extendedPublicKeyProblem(master.derive("m/44'/60'/0'/0").publicExtendedKey)).toMatch(/depth 3.*depth 4/);
    expect(extendedPublicKeyProblem('xpub-not-a-key')).toMatch(/not a valid/);
    expect(() => deriveDepositAddress(account.privateExtendedKey, 0)).toThrow(/PRIVATE/);
    expect(() => deriveDepositAddress(account.publicExtendedKey, -1)).toThrow(RangeError);
    expect(() => deriveDepositAddress(account.publicExtendedKey, 2 ** 31)).toThrow(RangeError);
    expect(() => deriveDepositAddress(account.publicExtendedKey, 1.5)).toThrow(RangeError);
  });

  it('accept a testnet-versioned public key (tpub) of the same account', () => {
    const master = HDKey.fromMasterSeed(randomBytes(32), { private: 0x04358394, public: 0x043587cf });
    const tpub = master.derive("m/44'/60'/0'").publicExtendedKey;
    expect(tpub.startsWith('tpub')).toBe(true);
    expect(deriveDepositAddress(tpub, 4)).toBe(hdKeyToAccount(master, { addressIndex: 4 }).address);
  });
});

function seedOf(mnemonic: string): Uint8Array {
  // BIP39: PBKDF2-HMAC-SHA512 of the mnemonic, salt "mnemonic", 2048 rounds, 64 bytes.
  return pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
}
