import { createHash, createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { UserRole } from '../../core/domain/user.ts';
import type { AccessClaims, TokenIssuer } from '../../core/ports/token-issuer.port.ts';

export interface JwtOptions {
  secret: string;
  issuer: string;
  audience: string;
  accessTokenTtlSeconds: number;
}

export class JwtTokenIssuer implements TokenIssuer {
  // A string secret makes jsonwebtoken first try to parse it as a public key on every call (and throw,
  // with a stack trace): about 150 µs per verify. A secret KeyObject made once skips that.
  private readonly key: KeyObject;

  constructor(private readonly options: JwtOptions) {
    this.key = createSecretKey(Buffer.from(options.secret, 'utf8'));
  }

  issueAccessToken(user: { id: string; role: UserRole }, sessionId: string): { token: string; expiresAt: Date; tokenId: string } {
    const tokenId = randomUUID();
    const nowSeconds = Math.floor(Date.now() / 1000);
    const exp = nowSeconds + this.options.accessTokenTtlSeconds;
    const token = jwt.sign({ sub: user.id, role: user.role, sid: sessionId, iat: nowSeconds, exp, jti: tokenId }, this.key, {
      algorithm: 'HS256',
      issuer: this.options.issuer,
      audience: this.options.audience,
    });
    return { token, expiresAt: new Date(exp * 1000), tokenId };
  }

  verifyAccessToken(token: string): AccessClaims | null {
    try {
      // Only HS256: an `alg: none` or asymmetric-algorithm token is rejected outright.
      const claims = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
      });
      if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number') return null;
      const role = (claims as { role?: unknown }).role;
      if (role !== 'user' && role !== 'admin') return null;
      const sid = (claims as { sid?: unknown }).sid;
      return { userId: claims.sub, role, tokenId: claims.jti, sessionId: typeof sid === 'string' ? sid : null, expiresAt: new Date(claims.exp * 1000) };
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
