import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** log2 of scrypt's N by default: OWASP's floor (2^17 is their ideal; 2^15 keeps a login near 50 ms on 2 cores). */
export const DEFAULT_PASSWORD_HASH_COST = 15;
const BLOCK_SIZE = 8;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...params, maxmem: 256 * 1024 * 1024 }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/**
 * Makes password hashes at one cost (`PASSWORD_HASH_COST`). The hash
 * `scrypt$N$r$p$<salt b64>$<hash b64>` carries its parameters, so hashes of
 * any cost verify, and raising the cost takes effect as passwords are set.
 */
export class PasswordHasher {
  private readonly params: { readonly N: number; readonly r: number; readonly p: number };

  /** A hash to verify against when the user does not exist, so both answers take the same time. */
  private decoyHash: Promise<string> | undefined;

  constructor(cost: number) {
    this.params = { N: 2 ** cost, r: BLOCK_SIZE, p: 1 };
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, this.params);
    const { N, r, p } = this.params;
    return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  decoy(): Promise<string> {
    this.decoyHash ??= this.hash(randomBytes(16).toString('hex'));
    return this.decoyHash;
  }
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
