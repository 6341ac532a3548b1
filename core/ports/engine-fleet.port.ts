/**
 * The engine servers as administrators see them (the admin console's fleet view). A server is named by its place in
 * the configuration (its address, which may carry credentials, stays out), or `builtin` for the in-process engine.
 */
export interface EngineServerStatus {
  server: number;
  name: string;
  healthy: boolean;
  error: string | null;
  /** Prompts the server runs now and holds waiting (its own queue); null where the engine has no such queue. */
  running: number | null;
  waiting: number | null;
  version: string | null;
  devices: { name: string; vramTotalMiB: number; vramFreeMiB: number }[];
  /** Model files the server offers, by loader input (ckpt_name, lora_name...); empty when it has none or cannot tell. */
  models: Record<string, string[]>;
}

export interface EngineFleet {
  /** Asks every server now; a server that does not answer is listed unhealthy with its error, never thrown. */
  servers(): Promise<EngineServerStatus[]>;
}
