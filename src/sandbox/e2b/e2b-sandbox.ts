import type { Logger } from "../../util/logger.js";
import type { Sandbox, SandboxLimits } from "../types.js";
import { SandboxError } from "../errors.js";
export interface E2bOptions { apiKey?: string; apiUrl?: string; sandboxUrl?: string }
export async function createE2bSandbox(_o: { limits: SandboxLimits; logger: Logger; concurrency?: number; e2b?: E2bOptions }): Promise<Sandbox> {
  throw new SandboxError("E_E2B", "not yet");
}
