import type { User } from '../../core/domain/user.ts';
import type { JsonSchema } from './openapi.ts';

export const userDto = (user: User) => ({
  id: user.id,
  email: user.email,
  displayName: user.displayName,
  role: user.role,
  coinBalance: user.coinBalance,
  createdAt: user.createdAt.toISOString(),
});

export const userSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'email', 'displayName', 'role', 'coinBalance', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string', format: 'email' },
    displayName: { type: 'string' },
    role: { type: 'string', enum: ['user', 'admin'] },
    coinBalance: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const messageSchema: JsonSchema = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
