import { createHash, randomBytes, randomUUID } from 'node:crypto';
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
  constructor(private readonly options: JwtOptions) {}

  issueAccessToken(user: { id: string; role: UserRole }): { token: string; expiresAt: Date; tokenId: string } {
    const tokenId = randomUUID();
    const nowSeconds = Math.floor(Date.now() / 1000);
    const exp = nowSeconds + this.options.accessTokenTtlSeconds;
    const token = jwt.sign({ sub: user.id, role: user.role, iat: nowSeconds, exp, jti: tokenId }, this.options.secret, {
      algorithm: 'HS256',
      issuer: this.options.issuer,
      audience: this.options.audience,
    });
    return { token, expiresAt: new Date(exp * 1000), tokenId };
  }

  verifyAccessToken(token: string): AccessClaims | null {
    try {
      // Only HS256: an `alg: none` or asymmetric-algorithm token is rejected outright.
      const claims = jwt.verify(token, this.options.secret, {
        algorithms: ['HS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
      });
      if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number') return null;
      const role = (claims as { role?: unknown }).role;
      if (role !== 'user' && role !== 'admin') return null;
      return { userId: claims.sub, role, tokenId: claims.jti, expiresAt: new Date(claims.exp * 1000) };
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
