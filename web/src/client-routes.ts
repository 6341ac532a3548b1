/**
 * Every path the client's router renders. The server reloads exactly these into index.html (adapters/http/web-app.ts
 * imports this file); any other unknown path is a 404. Plain data, no DOM: both sides import it.
 */
export const CLIENT_ROUTE_PATHS = [
  '/login',
  '/signup',
  '/reset-password',
  '/forgot-password',
  '/confirm-email',
  '/',
  '/history',
  '/connections',
  '/chat',
  '/api-keys',
  '/account',
  '/admin/templates',
  '/admin/users',
  '/admin/audit',
  '/admin/jobs',
  '/admin/queue',
  '/admin/fleet',
  '/admin/template-health',
] as const;

export type ClientRoutePath = (typeof CLIENT_ROUTE_PATHS)[number];
