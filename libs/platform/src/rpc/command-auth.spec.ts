import { CommandSecret, CommandSecrets, isNonce, newNonce } from './command-auth';

describe('command transport handshake proofs', () => {
  const secret = new CommandSecret('s'.repeat(40));
  const caller = newNonce();
  const owner = newNonce();

  it('proves only with the secret, the role and both nonces of this connection', () => {
    const proof = secret.proof('caller', caller, owner);
    expect(secret.verifies(proof, 'caller', caller, owner)).toBe(true);
    // The owner's proof is not the caller's: neither side can hand the other's back.
    expect(secret.verifies(proof, 'owner', caller, owner)).toBe(false);
    // A proof recorded on one connection is worthless on the next.
    expect(secret.verifies(proof, 'caller', caller, newNonce())).toBe(false);
    expect(new CommandSecret('t'.repeat(40)).verifies(proof, 'caller', caller, owner)).toBe(false);
    for (const wrong of [undefined, 42, '', proof.slice(1), `${proof}x`]) expect(secret.verifies(wrong, 'caller', caller, owner)).toBe(false);
  });

  it('names a secret by a key id that does not contain it, and finds each listed secret by it', () => {
    const secrets = new CommandSecrets(['a'.repeat(40), 'b'.repeat(40)]);
    expect(secrets.current.keyId).toBe(new CommandSecret('a'.repeat(40)).keyId);
    expect(secrets.current.keyId).not.toContain('aaaa');
    expect(secrets.find(new CommandSecret('b'.repeat(40)).keyId)).toBeDefined();
    expect(secrets.find(new CommandSecret('c'.repeat(40)).keyId)).toBeUndefined();
    expect(secrets.find(undefined)).toBeUndefined();
    expect(() => new CommandSecrets([])).toThrow();
  });

  it('takes only short base64url nonces into a proof', () => {
    expect(isNonce(newNonce())).toBe(true);
    for (const wrong of ['short', 'x'.repeat(65), 'has spaces in it....', 'line\nbreak-in-the-nonce', 7]) expect(isNonce(wrong)).toBe(false);
  });
});
