export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Constant-time comparison. With a null hash it still does the full work and returns false,
   * so an unknown email costs as much time as a wrong password. */
  verify(password: string, hash: string | null): Promise<boolean>;
}
