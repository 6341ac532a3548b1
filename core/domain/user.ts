export type UserRole = 'user' | 'admin';

export interface User {
  id: string;
  email: string;
  displayName: string;
  role: UserRole;
  coinBalance: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a user record stores beyond the public fields: never leaves the core through a response. */
export interface UserCredentials {
  passwordHash: string | null;
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

// Deliberately simple: one "@", something on each side, a dot in the domain, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The top-level domain RFC 2606 reserves for names that cannot exist: no one can sign up with it. */
const DELETED_DOMAIN = '.invalid';

export const isValidEmail = (email: string): boolean => email.length <= 254 && EMAIL.test(email) && !email.toLowerCase().endsWith(DELETED_DOMAIN);

/** The email a deleted account keeps until its purge (ADR 063): unique, and no address anyone can register. */
export const deletedEmail = (id: string): string => `deleted-${id}@deleted${DELETED_DOMAIN}`;

export const DELETED_DISPLAY_NAME = 'Deleted user';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const DISPLAY_NAME_MAX = 64;

/** Why a display name is refused (empty, blank or too long once trimmed), or null: at sign-up and on a change. */
export function displayNameProblem(displayName: unknown): string | null {
  if (typeof displayName !== 'string' || displayName.trim().length === 0 || displayName.trim().length > DISPLAY_NAME_MAX) return `must be 1 to ${DISPLAY_NAME_MAX} characters`;
  return null;
}
