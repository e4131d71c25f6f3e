import { existsSync, mkdtempSync, rmSync } from "node:fs";
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
export const ARTIFACTS = path.resolve(import.meta.dirname, "../../test-artifacts");

export interface OpenedPage {
  page: Page;
  /** Requests other than the page file itself (all were failed). */
  requests: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

export interface ReportBrowser {
  open(file: string, viewport?: { width: number; height: number }): Promise<OpenedPage>;
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
    async open(file, viewport = { width: 1200, height: 800 }) {
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
      await page.goto(url, { waitUntil: "load" });
      await page.waitForSelector("body[data-ready='true']", { timeout: 10_000 });
      return { page, requests, errors };
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
