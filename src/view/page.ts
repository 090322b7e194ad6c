/**
 * The viewer's page: one HTML shell, its script and its style sheet (served
 * by the viewer itself — no CDN, so it works offline), and the
 * Content-Security-Policy that forbids everything else: no inline script, no
 * eval, no other origin. Participant text is only ever set as textContent by
 * the script, and the policy is the second wall if that ever slips.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../util/package-root.js";
import { BenchError, errorMessage } from "../util/errors.js";

/** Where the browser code lives (plain files, shipped with the package). */
export const STATIC_DIR = join(packageRoot, "src", "view", "static");

/** The policy of served pages. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The policy of raw run files: nothing runs, even if a browser were to render one. */
export const RAW_CSP = "default-src 'none'; sandbox";

export interface StaticAssets {
  script: string;
  style: string;
}

/** The browser code and style, read from the package. */
export function loadAssets(): StaticAssets {
  try {
    return {
      script: readFileSync(join(STATIC_DIR, "view.js"), "utf8"),
      style: readFileSync(join(STATIC_DIR, "view.css"), "utf8"),
    };
  } catch (err) {
    throw new BenchError(
      "E_VIEW_ASSETS",
      `the viewer's page files are missing (${STATIC_DIR}: ${errorMessage(err)}); they ship with the package ("files" in package.json)`,
    );
  }
}

/** The served page: the shell that loads /assets/view.{css,js}. */
export function shellHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>a2a-bench view</title>
<link rel="stylesheet" href="/assets/view.css">
</head>
<body>
<div id="app"><p class="loading">Loading…</p></div>
<script src="/assets/view.js"></script>
</body>
</html>
`;
}
