// Opens a NoveltyGrid report.html in Debian's headless chromium (driven over the DevTools protocol by
// playwright-core) and prints ONE JSON object of facts about it on stdout; the assertions live in
// tests/integration/report_browser_test.cc. Facts:
//   title, marker            <title>, and <html data-noveltygrid-report>
//   console_errors, console_warnings, page_errors   everything the page logged or threw, start to end
//   requests                 every URL the page asked for other than the report file itself (data: and
//                            blob: excepted), whether it loaded or not: all of them are blocked
//   charts                   {ID: number of g.series} for every figure.chart[data-chart] on the page
//   chart_details            {ID: {svgs, width, height, labels, empty_series}}: what a reader would see
//   models                   the li[data-model] ids of ul#models
//   iteration, samples       the question picker's and the prompt picker's effect (null when absent):
//                            {options, picked, before, after}; before/after hold the view's data-question
//                            (data-prompt) and, for iterations, the first line of the iteration-coherence
//                            chart (a polyline's points, or a path's d) and its series count; for samples
//                            a digest and the start of the view's text
//
// Usage: node inspect_report.mjs REPORT.html [--screenshot OUT.png]
//   --screenshot writes a full-page PNG of the report as first shown (before any picking).
//   NOVELTYGRID_CHROMIUM overrides the browser (default /usr/bin/chromium).
// Exit codes: 0 facts printed (judging them is the caller's job); 2 chromium or playwright-core missing;
// 1 anything else (the report could not be opened, a timeout).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SETUP = 'NOVELTYGRID_SETUP_BROWSER=1 bash scripts/setup.sh';
const CHROMIUM = process.env.NOVELTYGRID_CHROMIUM || '/usr/bin/chromium';
// The network is closed: without the background-networking flags chromium keeps trying (and failing) to
// reach Google's services at every start. --no-sandbox because the tests run as root.
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                        '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const DEADLINE_MS = 90_000;  // the whole inspection; a hung browser fails instead of hanging ctest
const PICK_TIMEOUT_MS = 5_000;  // for the page's change handler to swap a view

function die(code, message) {
  process.stderr.write(`inspect_report: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const args = { report: null, screenshot: null };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--screenshot' && i + 1 < argv.length) args.screenshot = path.resolve(argv[++i]);
    else if (!argv[i].startsWith('--') && args.report === null) args.report = path.resolve(argv[i]);
    else die(1, `unexpected argument ${argv[i]}\nusage: node inspect_report.mjs REPORT.html [--screenshot OUT.png]`);
  }
  if (args.report === null) die(1, 'usage: node inspect_report.mjs REPORT.html [--screenshot OUT.png]');
  if (!existsSync(args.report)) die(1, `${args.report} does not exist (does the results folder have a report?)`);
  return args;
}

const withoutHash = (url) => url.split('#')[0];
const sha1 = (text) => createHash('sha1').update(text).digest('hex');

// Facts of the static page: title, charts, models. Runs in the page.
function readPage() {
  const charts = {};
  const details = {};
  const duplicates = [];
  for (const figure of document.querySelectorAll('figure.chart[data-chart]')) {
    const id = figure.dataset.chart;
    if (id in charts) duplicates.push(id);
    const series = [...figure.querySelectorAll('g.series')];
    const svg = figure.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
    charts[id] = series.length;
    details[id] = {
      svgs: figure.querySelectorAll('svg').length,
      width: Math.round(box.width),
      height: Math.round(box.height),
      labels: series.map((g) => g.dataset.series ?? ''),
      empty_series: series.filter((g) => !g.querySelector('polyline, path, circle, rect'))
                          .map((g) => g.dataset.series ?? ''),
    };
  }
  return {
    title: document.title,
    marker: document.documentElement.dataset.noveltygridReport ?? null,
    charts,
    chart_details: details,
    duplicate_chart_ids: duplicates,
    models: [...document.querySelectorAll('#models li[data-model]')].map((li) => li.dataset.model),
  };
}

// What a picker's view shows now. Runs in the page.
function readView({ viewId, key }) {
  const view = document.getElementById(viewId);
  if (!view) return null;
  const state = { [key]: view.dataset[key] ?? null };
  if (key === 'question') {
    const chart = view.querySelector('figure.chart[data-chart="iteration-coherence"]');
    const polyline = chart?.querySelector('g.series polyline');
    const line = polyline ?? chart?.querySelector('g.series path');
    state.points = line ? line.getAttribute(polyline ? 'points' : 'd') : null;
    state.series = chart ? chart.querySelectorAll('g.series').length : 0;
  } else {
    state.html = view.innerHTML;
    state.text = view.textContent.replace(/\s+/g, ' ').trim().slice(0, 160);
  }
  return state;
}

// Picks the first option other than the one shown (the second, normally) and waits for the view to say so.
async function pick(page, { pickerId, viewId, key }) {
  const options = await page.$$eval(`#${pickerId} option`, (list) => list.map((o) => o.value)).catch(() => null);
  if (options === null || options.length === 0) return null;
  const view = { viewId, key };
  const digest = (state) => {
    if (state === null || state.html === undefined) return state;
    const { html, ...rest } = state;
    return { ...rest, sha1: sha1(html) };
  };
  const before = await page.evaluate(readView, view);
  const shown = before ? before[key] : null;
  const picked = options.find((value) => value !== shown) ?? null;
  if (picked !== null) {
    await page.selectOption(`#${pickerId}`, picked);
    await page.waitForFunction(({ viewId, key, picked }) => document.getElementById(viewId)?.dataset[key] === picked,
                               { viewId, key, picked }, { timeout: PICK_TIMEOUT_MS }).catch(() => {});
  }
  const after = await page.evaluate(readView, view);
  return { options: options.length, picked, before: digest(before), after: digest(after) };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(CHROMIUM)) die(2, `${CHROMIUM} not found: install Debian's chromium with \`${SETUP}\``);
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (err) {
    die(2, `cannot load playwright-core (${err.message.split('\n')[0]}): run \`${SETUP}\` (npm ci in tests/browser)`);
  }
  const reportUrl = pathToFileURL(args.report).href;
  const facts = { report: args.report, console_errors: [], console_warnings: [], page_errors: [], requests: [] };
  const requested = new Set();
  const record = (url) => {
    if (withoutHash(url) === withoutHash(reportUrl) || /^(data|blob|about):/.test(url) || requested.has(url)) return;
    requested.add(url);
    facts.requests.push(url);
  };

  const profile = mkdtempSync(path.join(tmpdir(), 'noveltygrid-chromium-'));  // a fresh --user-data-dir
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000,
      viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, offline: true,
    });
    // Nothing but the report itself may load; everything else is recorded, then blocked.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (withoutHash(url) === withoutHash(reportUrl)) return route.continue();
      record(url);
      return route.abort('blockedbyclient');
    });
    context.on('request', (request) => record(request.url()));
    context.on('requestfailed', (request) => record(request.url()));
    const page = context.pages()[0] ?? await context.newPage();
    page.on('console', (msg) => {
      const where = msg.location()?.url ? ` (${msg.location().url}:${msg.location().lineNumber})` : '';
      if (msg.type() === 'error') facts.console_errors.push(msg.text() + where);
      else if (msg.type() === 'warning') facts.console_warnings.push(msg.text() + where);
    });
    page.on('pageerror', (err) => facts.page_errors.push(String(err.stack ?? err.message).split('\n')[0]));
    page.on('websocket', (ws) => record(ws.url()));
    page.on('dialog', (dialog) => {
      facts.page_errors.push(`unexpected ${dialog.type()} dialog: ${dialog.message()}`);
      dialog.dismiss().catch(() => {});
    });
    // The protocol's own record of requests, beside playwright's: it also sees what interception does not.
    const cdp = await context.newCDPSession(page);
    cdp.on('Network.requestWillBeSent', (event) => record(event.request.url));
    await cdp.send('Network.enable');

    await page.goto(reportUrl, { waitUntil: 'load', timeout: 30_000 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    Object.assign(facts, await page.evaluate(readPage));
    if (args.screenshot) {
      await page.screenshot({ path: args.screenshot, fullPage: true });
      facts.screenshot = args.screenshot;
    }
    facts.iteration = await pick(page, { pickerId: 'question-picker', viewId: 'iteration-plot', key: 'question' });
    facts.samples = await pick(page, { pickerId: 'prompt-picker', viewId: 'sample-view', key: 'prompt' });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
  } finally {
    await context?.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(facts, null, 2)}\n`);
}

const deadline = setTimeout(() => die(1, `no result within ${DEADLINE_MS / 1000} s`), DEADLINE_MS);
main().then(() => clearTimeout(deadline), (err) => die(1, err.stack ?? String(err)));
