/** A sign-in identity at an OpenID Connect provider, linked to one user. */
export interface LinkedIdentity {
  userId: string;
  /** The configured provider key (`google`). */
  provider: string;
  /** The provider's stable `sub` for this person. */
  subject: string;
  /** The email the provider reported when the identity was linked (for display only). */
  email: string | null;
  createdAt: Date;
}

export interface IdentityRepository {
  /**
   * Returns false, changing nothing, when (provider, subject) is linked already (to anyone) or the user
   * has an identity at this provider already.
   */
  link(identity: LinkedIdentity): Promise<boolean>;
  findBySubject(provider: string, subject: string): Promise<LinkedIdentity | null>;
  /**
   * The user's identities, oldest first. Inside a transaction the rows stay locked until it ends, so two
   * removals cannot both see the other's identity as the one that remains.
   */
  listForUser(userId: string): Promise<LinkedIdentity[]>;
  /** False when the user has no identity at this provider. */
  unlink(userId: string, provider: string): Promise<boolean>;
  /** Removes every sign-in identity of the user (a deleted account, ADR 063): its provider can sign up afresh. How many went. */
  unlinkAll(userId: string): Promise<number>;
}
