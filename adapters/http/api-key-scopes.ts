import type { ApiKeyScope } from '../../core/domain/api-key.ts';

/**
 * The routes an API key may call, by `method path` as registered, and the scope each needs (ADR 035).
 * A protected route that is not listed here refuses keys (403): a new route accepts keys only once it is
 * added here, and tests/integration/api-keys.test.ts pins the whole table. Administrator routes need `admin`.
 */
const KEY_SCOPES: Record<string, ApiKeyScope> = {
  'get /auth/profile': 'generate',
  'get /templates': 'generate',
  'get /templates/:id': 'generate',
  'post /generate': 'generate',
  'get /generate': 'generate',
  'get /generate/:id': 'generate',
  'post /generate/:id/cancel': 'generate',
  'post /uploads': 'generate',
  'post /coin/deduct': 'generate',
  'get /coin/transactions': 'generate',
  'get /my-outputs': 'history',
  'get /my-outputs/:id/view-url': 'history',
  'get /my-outputs/:id/download-url': 'history',
  'delete /my-outputs/:id': 'history',
  // The Comfy API v2 surface at /api/v2 (ADR 040): what @comfyorg/sdk calls with its key.
  'post /jobs': 'generate',
  'get /jobs/:id': 'generate',
  'get /jobs/:id/workflow': 'generate',
  'get /jobs/:id/events': 'generate',
  'post /jobs/:id/cancel': 'generate',
  'get /assets/:id': 'generate',
  'get /assets/:id/content': 'generate',
  // Its uploaded assets (ADR 042): uploads, which `generate` covers as it covers POST /uploads.
  'post /assets': 'generate',
  'post /assets/from-hash': 'generate',
  'head /assets/by-hash/:hash': 'generate',
  'delete /assets/:id': 'generate',
};

/**
 * Administrator routes that refuse keys, even `admin` ones: a reset link sets any user's password (ADR 062), and a
 * deletion ends an account for good (ADR 063), so a leaked key must not be able to do either. An administrator does
 * them signed in.
 */
const SESSION_ONLY_ADMIN_ROUTES = new Set(['post /admin/users/:id/password-reset', 'delete /admin/users/:id']);

/** The scope a key needs on this route, or null when the route refuses keys. */
export function keyScopeOf(route: { method: string; path: string; auth: string }): ApiKeyScope | null {
  if (route.auth === 'admin') return SESSION_ONLY_ADMIN_ROUTES.has(`${route.method} ${route.path}`) ? null : 'admin';
  return KEY_SCOPES[`${route.method} ${route.path}`] ?? null;
}
