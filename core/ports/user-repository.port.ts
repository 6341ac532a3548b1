import type { Page, PageRequest } from '../domain/pagination.ts';
import type { User, UserRole } from '../domain/user.ts';

export interface NewUser {
  id: string;
  email: string;
  displayName: string;
  role: UserRole;
  passwordHash: string | null;
  createdAt: Date;
}

export interface UserRepository {
  /** Returns false when the (case-insensitive) email is taken. Balance starts at 0. */
  create(user: NewUser): Promise<boolean>;
  findById(id: string): Promise<User | null>;
  findByEmail(email: string): Promise<(User & { passwordHash: string | null }) | null>;
  setRole(id: string, role: UserRole, at: Date): Promise<void>;
  list(request: PageRequest, query?: string): Promise<Page<User>>;
}
