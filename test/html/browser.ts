import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

/** Debian's Chromium: the browser tests never download one. */
export const CHROMIUM = process.env.EB_CHROMIUM ?? "/usr/bin/chromium";

export const HAS_CHROMIUM = existsSync(CHROMIUM);

if (!HAS_CHROMIUM) {
  console.warn(
    `\n*** ${CHROMIUM} is missing: the report.html browser tests are SKIPPED. Install Debian's chromium package (CI's .ci/run does). ***\n`,
  );
}

/** Where the tests leave their screenshots (git-ignored). */
const ARTIFACTS = path.resolve(import.meta.dirname, "../../test-artifacts");

/** The path of a screenshot named `name` (test-artifacts/<name>.png), its folder made. */
export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, `${name}.png`);
}

export interface OpenedPage {
  page: Page;
  /** Requests other than the page file itself (all were failed). */
  requests: string[];
  /** Console errors, uncaught exceptions and dialogs. */
  errors: string[];
}

export interface OpenOptions {
  viewport?: { width: number; height: number };
  /**
   * What marks the page ready: report.html's script sets `body[data-ready]`; null for a page
   * with no script (the leaderboard), ready once loaded.
   */
  ready?: string | null;
}

export interface ReportBrowser {
  open(file: string, options?: OpenOptions): Promise<OpenedPage>;
  close(): Promise<void>;
}

/** One headless Chromium, offline: every request but the page file itself is failed and recorded. */
export async function launchBrowser(): Promise<ReportBrowser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), "eb-chromium-"));
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    async open(file, options = {}) {
      const { viewport = { width: 1200, height: 800 }, ready = "body[data-ready='true']" } =
        options;
      const url = pathToFileURL(file).href;
      const page = await browser.newPage();
      await page.setViewport(viewport);
      const requests: string[] = [];
      const errors: string[] = [];
      await page.setRequestInterception(true);
      page.on("request", (request) => {
        if (request.url() === url) return void request.continue();
        requests.push(request.url());
        void request.abort();
      });
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(String(error)));
      // A dialog is run data: markup in an answer or a model name became script.
      page.on("dialog", (dialog) => {
        errors.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      await page.goto(url, { waitUntil: "load" });
      if (ready !== null) await page.waitForSelector(ready, { timeout: 10_000 });
      return { page, requests, errors };
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
