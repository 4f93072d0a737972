import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The command transport's handshake: before any command, caller and owner each prove they hold the shared
 * COMMAND_SECRET without sending it. Exchange id 0 carries it (command exchanges start at 1):
 *
 *   caller → owner  {"hello":1,"key":<key id>,"nonce":<caller nonce>}
 *   owner  → caller {"nonce":<owner nonce>,"proof":HMAC(secret, "owner", caller nonce, owner nonce)}
 *   caller → owner  {"proof":HMAC(secret, "caller", caller nonce, owner nonce)}, then its commands
 *   owner  → caller {"refused":<reason>} and the connection closes, when anything is wrong
 *
 * Fresh nonces on both sides make a recorded proof useless on another connection, and the two proofs differ by
 * role, so neither side can hand the other's back. The key id (a one-way digest) says which of the owner's
 * secrets the caller holds, so a secret can be replaced without a moment where the two disagree.
 */
export const HANDSHAKE_EXCHANGE_ID = 0;

/** A handshake frame is a few hundred bytes; a larger one before the handshake is not a caller of ours. */
export const MAX_HANDSHAKE_BYTES = 1024;

export interface Hello {
  hello: 1;
  key: string;
  nonce: string;
}

export interface Challenge {
  nonce: string;
  proof: string;
}

export interface CallerProof {
  proof: string;
}

export interface Refusal {
  refused: string;
}

/** One secret of the transport: its public key id and the proofs made with it. */
export class CommandSecret {
  readonly keyId: string;

  constructor(private readonly secret: string) {
    this.keyId = createHmac('sha256', secret).update('payments command transport key id').digest('base64url').slice(0, 16);
  }

  proof(role: 'owner' | 'caller', callerNonce: string, ownerNonce: string): string {
    return createHmac('sha256', this.secret).update(`payments command transport\n${role}\n${callerNonce}\n${ownerNonce}`).digest('base64url');
  }

  /** Whether `given` is this secret's proof, compared in constant time. */
  verifies(given: unknown, role: 'owner' | 'caller', callerNonce: string, ownerNonce: string): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.proof(role, callerNonce, ownerNonce));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

/** The secrets an owner accepts (COMMAND_SECRET's entries), found by the key id a caller names. */
export class CommandSecrets {
  private readonly byKeyId: Map<string, CommandSecret>;
  /** The one a caller proves: the setting's first. */
  readonly current: CommandSecret;

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('the command transport needs a secret');
    const all = secrets.map((secret) => new CommandSecret(secret));
    this.current = all[0]!;
    this.byKeyId = new Map(all.map((secret) => [secret.keyId, secret]));
  }

  find(keyId: unknown): CommandSecret | undefined {
    return typeof keyId === 'string' ? this.byKeyId.get(keyId) : undefined;
  }
}

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

/** A handshake frame's JSON object, or undefined when it is not one. */
export function readHandshake(payload: Buffer | undefined): Record<string, unknown> | undefined {
  if (!payload || payload.length > MAX_HANDSHAKE_BYTES) return undefined;
  try {
    const value: unknown = JSON.parse(payload.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch (error) {
    // Not JSON: not a handshake (the caller refuses the peer).
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** A nonce as the other side must send it: a short base64url string (it goes into the proof's text). */
export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(value);
}
