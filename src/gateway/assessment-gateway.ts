/**
 * One assessment's gateway: its own server on a fresh port, its own path
 * (`/<random>/v1`) and ledger, opened when the run starts and closed (every
 * token revoked, the port closed) when it ends. What the runner uses.
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Logger } from "../util/logger.js";
import { ModelGateway } from "./gateway.js";
import { Ledger, type CostCaps, type ItemAccount, type MeasuredUsage } from "./ledger.js";
import { createGatewayServer } from "./server.js";
import type { GatewaySettings } from "./settings.js";

/** What the participant is given for one item (`model_gateway` of the item's message). */
export interface GatewayGrant {
  /** OpenAI-compatible base URL: `<base_url>/chat/completions`. */
  base_url: string;
  /** Bearer token of this item only, valid while the item runs. */
  api_key: string;
  /** Models the gateway serves (the operator's price table). */
  models: string[];
}

export interface AssessmentGateway {
  /** This assessment's base URL (`http://<public host>:<port>/<random>/v1`). */
  readonly baseUrl: string;
  /** Open an item's account; `grant` is what the participant gets. */
  openItem(itemId: string): { account: ItemAccount; grant: GatewayGrant };
  /** Revoke the item's token; what it spent. */
  closeItem(account: ItemAccount): MeasuredUsage;
  runTotals(): MeasuredUsage;
  close(): Promise<void>;
}

export async function startAssessmentGateway(
  settings: GatewaySettings,
  caps: CostCaps,
  logger: Logger,
  fetchImpl?: typeof fetch,
): Promise<AssessmentGateway> {
  const ledger = new Ledger(caps);
  const basePath = `/${randomBytes(12).toString("base64url")}/v1`;
  const gateway = new ModelGateway({
    upstream: settings.upstream,
    upstreamKey: settings.upstreamKey,
    prices: settings.prices,
    ledger,
    basePath,
    logger,
    upstreamTimeoutMs: settings.upstreamTimeoutMs,
    ...(fetchImpl ? { fetchImpl } : {}),
  });
  const server = createGatewayServer(gateway, { logger });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, settings.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = settings.publicHost.includes(":") ? `[${settings.publicHost}]` : settings.publicHost;
  const baseUrl = `http://${host}:${port}${basePath}`;
  const models = Object.keys(settings.prices);
  logger.info({ base_url: baseUrl, caps }, "model gateway open");
  return {
    baseUrl,
    openItem(itemId) {
      const account = ledger.open(itemId);
      return { account, grant: { base_url: baseUrl, api_key: account.token, models } };
    },
    closeItem: (account) => ledger.close(account.token),
    runTotals: () => ledger.runTotals(),
    close: () =>
      new Promise<void>((resolve) => {
        ledger.closeAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
