import type { Container } from 'inversify';
import type { Config } from '../config.ts';
import { bindAuth } from './auth.module.ts';

/** Every feature module, in one place: a feature that is not listed here is not bound. */
export function bindFeatures(container: Container, config: Readonly<Config>): void {
  bindAuth(container, config);
}
