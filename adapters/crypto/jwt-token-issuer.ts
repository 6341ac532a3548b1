import { createHash, createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { UserRole } from '../../core/domain/user.ts';
import type { AccessClaims, TokenIssuer } from '../../core/ports/token-issuer.port.ts';

export interface JwtOptions {
  secret: string;
  issuer: string;
  audience: string;
  accessTokenTtlSeconds: number;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

/** Verified tokens remembered (by their full text), at most this many: one per active session is plenty. */
const VERIFIED_MAX = 10_000;

export class JwtTokenIssuer implements TokenIssuer {
  // A string secret makes jsonwebtoken first try to parse it as a public key on every call (and throw,
  // with a stack trace): about 150 µs per verify. A secret KeyObject made once skips that.
  private readonly key: KeyObject;
  private readonly now: () => number;
  /**
   * Signature, algorithm, issuer and audience of a token never change, so a token verified once is not
   * verified again (HMAC and two JSON parses were a tenth of an authenticated request's CPU). Expiry is
   * checked on every call; revocation is not this class's business (Authenticate reads it from storage).
   */
  private readonly verified = new Map<string, AccessClaims>();

  constructor(private readonly options: JwtOptions) {
    this.key = createSecretKey(Buffer.from(options.secret, 'utf8'));
    this.now = options.now ?? Date.now;
  }

  issueAccessToken(user: { id: string; role: UserRole }, sessionId: string): { token: string; expiresAt: Date; tokenId: string } {
    const tokenId = randomUUID();
    const nowSeconds = Math.floor(this.now() / 1000);
    const exp = nowSeconds + this.options.accessTokenTtlSeconds;
    const token = jwt.sign({ sub: user.id, role: user.role, sid: sessionId, iat: nowSeconds, exp, jti: tokenId }, this.key, {
      algorithm: 'HS256',
      issuer: this.options.issuer,
      audience: this.options.audience,
    });
    return { token, expiresAt: new Date(exp * 1000), tokenId };
  }

  verifyAccessToken(token: string): AccessClaims | null {
    // jsonwebtoken's rule: expired once the current second reaches `exp`.
    const nowSeconds = Math.floor(this.now() / 1000);
    const known = this.verified.get(token);
    if (known) {
      if (nowSeconds < known.expiresAt.getTime() / 1000) return known;
      this.verified.delete(token);
      return null;
    }
    const claims = this.verify(token, nowSeconds);
    if (claims) {
      if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
    }
    return claims;
  }

  private verify(token: string, nowSeconds: number): AccessClaims | null {
    try {
      // Only HS256: an `alg: none` or asymmetric-algorithm token is rejected outright.
      const claims = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTimestamp: nowSeconds,
      });
      if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number') return null;
      const role = (claims as { role?: unknown }).role;
      if (role !== 'user' && role !== 'admin') return null;
      const sid = (claims as { sid?: unknown }).sid;
      return Object.freeze({ userId: claims.sub, role, tokenId: claims.jti, sessionId: typeof sid === 'string' ? sid : null, expiresAt: new Date(claims.exp * 1000) });
    } catch {
      return null;
    }
  }

  newOpaqueToken(): string {
    return randomBytes(32).toString('base64url');
  }

  hashOpaqueToken(token: string): string {
    return createHash('sha256').update(token).digest('hex');
  }
}
