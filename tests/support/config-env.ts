/** Configuration read from a given environment, as the config tests read it (no secret is kept on disk). */
import { loadConfig, type Config } from '../../bootstrap/config.ts';

/** The configuration of `env`; throws when it has problems. */
export const load = (env: Record<string, string>): Readonly<Config> => {
  const result = loadConfig(env, { persistLocalSecret: false });
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result.config;
};

/** The problems of `env`; throws when it has none. */
export const problemsOf = (env: Record<string, string>): string[] => {
  const result = loadConfig(env, { persistLocalSecret: false });
  if (result.ok) throw new Error(`configuration unexpectedly valid: ${JSON.stringify(env)}`);
  return result.problems;
};
