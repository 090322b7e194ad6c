/**
 * Debian's chromium, driven headless by playwright-core (which downloads no
 * browser), for the viewer's end-to-end tests; and the viewer on port 0.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { createViewApp } from "../../src/view/app.js";

export const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
}

export async function startViewer(dirs: string[]): Promise<{ base: string; close(): Promise<void> }> {
  const server: Server = createServer(createViewApp({ dirs }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The page's globals the tests read (this project compiles without the DOM library). */
export interface PageGlobals {
  document: { body: { dataset: Record<string, string | undefined> } };
  __pwned?: unknown;
}

/** What a page did that it must not: script errors, dialogs, requests to another origin. */
export interface PageWatch {
  dialogs: string[];
  errors: string[];
  foreign: string[];
}

/** A new page whose dialogs, errors and requests leaving `origin` are recorded (and refused). */
export async function watchedPage(browser: Browser, origin: string | null): Promise<{ page: Page; watch: PageWatch }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  const watch: PageWatch = { dialogs: [], errors: [], foreign: [] };
  page.on("dialog", (d) => {
    watch.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => watch.errors.push(e.message));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (origin === null ? url.startsWith("file:") : url.startsWith(origin)) return route.continue();
    watch.foreign.push(url);
    return route.abort();
  });
  return { page, watch };
}

/** Navigate to `url` and wait until its view is drawn (the page marks the route it drew). */
export async function open(page: Page, url: string): Promise<void> {
  const route = (new URL(url).hash || "#/").split("?")[0]!;
  await page.goto(url);
  await page.waitForFunction((r) => (globalThis as unknown as PageGlobals).document.body.dataset["ready"] === r, route);
}
