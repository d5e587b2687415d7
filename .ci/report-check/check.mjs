// Opens, in Debian's headless Chromium through playwright-core, for every profiled example test (each directory with a
// summary.json under the examples' profiled-rollout output):
// - its report.html at 1280 px width: the outcome banner agrees with summary.json's outcome, the verdict table has one
//   row per summary.json verdict, every chart image loads, the page does not overflow horizontally, the banner and
//   summary fit in one screen and the charts sit in two columns at most 450 px tall, each of the top kernels' full
//   names is on the page, each phase's own report.html exists, and when summary.json has timed roofline rows the
//   Roofline table lists them (up to 15) with GFLOPs and TFLOPS/s, and a multi-rank step timeline with gaps has its
//   per-step table with one straggler cell a row; when the run has a stages.json (a staged load), the Stages section's
//   throughput-latency chart loads and its table has one row per stage; when summary.json (or a phase) has a history block
//   with trends, its History section has one row per history verdict and every trend chart loads in a 2-column grid;
// - the rendered Allure report (a single index.html): its phase steps, the latency table, at least four charts that
//   load as images and the kernel table.
// Usage: node check.mjs REPORT_HTML PROFILED_ROLLOUT_DIR [SCREENSHOT_PNG]; REPORT_HTML "-" checks only the pages.
import { chromium } from 'playwright-core';
import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [reportHtml, outputDir, screenshot] = process.argv.slice(2);
if (!reportHtml || !outputDir) {
  console.error('usage: node check.mjs REPORT_HTML PROFILED_ROLLOUT_DIR [SCREENSHOT_PNG]');
  process.exit(2);
}
const PHASES = ['engine ready', 'warm-up', 'start profile', 'load', 'stop profile', 'trace collection', 'analysis',
  'budgets'];
const MIN_CHARTS = 4;

const tests = [];
for (const cls of readdirSync(outputDir)) {
  for (const method of readdirSync(join(outputDir, cls))) {
    if (existsSync(join(outputDir, cls, method, 'summary.json'))) tests.push({ cls, method });
  }
}
if (tests.length === 0) {
  console.error(`report-check: no summary.json under ${outputDir}; did the examples run?`);
  process.exit(1);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const failures = [];
const VIEWPORT = { width: 1280, height: 900 };
const MAX_CHART_HEIGHT = 450;

// The banner status a summary.json implies: its outcome, else (an older file) its error or a failed verdict.
function expectedStatus(summary) {
  if (summary.outcome && summary.outcome.status) return summary.outcome.status;
  if (summary.error) return 'ERROR';
  return (summary.verdicts || []).some(v => v.passed === false && v.enforced !== false) ? 'FAILED' : 'PASSED';
}

async function checkPage(page, t) {
  const name = `${t.cls}.${t.method}`;
  const dir = join(outputDir, t.cls, t.method);
  const file = join(dir, 'report.html');
  if (!existsSync(file)) {
    failures.push(`${name}: no report.html`);
    return;
  }
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  await page.goto(pathToFileURL(resolve(file)).href);
  await page.waitForLoadState('load');
  const m = await page.evaluate(() => {
    const banner = document.querySelector('#outcome');
    const summaryEnd = [banner, ...document.querySelectorAll('body > dl.summary')].filter(e => e).pop();
    const grid = document.querySelector('body > div.charts');
    const imgs = [...document.querySelectorAll('img.chart')];
    const gridImgs = grid ? [...grid.querySelectorAll('img.chart')] : [];
    const kernelCells = [...document.querySelectorAll('table.kernels td.kernel')];
    return {
      status: banner ? banner.dataset.status : null,
      verdictRows: document.querySelectorAll('body > div.scroll > table.verdicts tr.verdict').length,
      noVerdicts: document.querySelector('body > p.verdicts') !== null,
      images: imgs.length,
      broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
      scrollWidth: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight,
      summaryBottom: summaryEnd ? summaryEnd.getBoundingClientRect().bottom + window.scrollY : 0,
      columns: new Set(gridImgs.map(i => Math.round(i.getBoundingClientRect().left))).size,
      tallest: Math.max(0, ...gridImgs.map(i => i.getBoundingClientRect().height)),
      kernelNames: kernelCells.flatMap(c => [c.textContent, c.getAttribute('title')]),
      rooflineRows: [...document.querySelectorAll('table.roofline tr')].slice(1)
        .map(r => [...r.querySelectorAll('td')].map(td => td.textContent)),
      stepGapRows: [...document.querySelectorAll('table.step-gaps tr')].slice(1)
        .map(r => r.querySelectorAll('td.straggler').length),
      rooflineWidth: (() => {
        const t = document.querySelector('table.roofline');
        return t ? t.closest('div.scroll').getBoundingClientRect().width : 0;
      })(),
    };
  });
  const want = expectedStatus(summary);
  if (m.status !== want) failures.push(`${name}: report.html banner ${m.status}, summary.json outcome ${want}`);
  const verdicts = (summary.verdicts || []).length;
  if (verdicts > 0 ? m.verdictRows !== verdicts : !m.noVerdicts) {
    failures.push(`${name}: report.html verdict table has ${m.verdictRows} row(s), summary.json ${verdicts} verdict(s)`);
  }
  if (m.broken.length > 0) failures.push(`${name}: report.html chart(s) did not load: ${m.broken}`);
  if (summary.latency && m.images < MIN_CHARTS) failures.push(`${name}: report.html has ${m.images} chart(s)`);
  if (m.scrollWidth > VIEWPORT.width) {
    failures.push(`${name}: report.html overflows horizontally (${m.scrollWidth} px at ${VIEWPORT.width} px)`);
  }
  if (m.summaryBottom > VIEWPORT.height) {
    failures.push(`${name}: report.html banner and summary end at ${Math.round(m.summaryBottom)} px, below the first `
      + `screen (${VIEWPORT.height} px)`);
  }
  if (m.images >= 2 && m.columns < 2) failures.push(`${name}: report.html charts are in ${m.columns} column(s), not 2`);
  if (m.tallest > MAX_CHART_HEIGHT) {
    failures.push(`${name}: report.html chart ${Math.round(m.tallest)} px tall, more than ${MAX_CHART_HEIGHT} px`);
  }
  const kernels = ((summary.trace || {}).kernels || []).slice(0, 10).map(k => k.name);
  const missing = kernels.filter(k => !m.kernelNames.includes(k));
  if (missing.length > 0) failures.push(`${name}: report.html lacks the full kernel name(s) ${missing.join(' | ')}`);
  // A Roofline table when summary.json has timed GEMM/attention rows: one row per op and argument set (at most 15),
  // each with a positive GFLOPs figure and achieved TFLOPS/s, inside its scroll box.
  const timed = ((summary.trace || {}).ranks || []).flatMap(r => r.roofline || []).filter(r => r.count > 0);
  if (timed.length > 0) {
    const want = Math.min(15, timed.length);
    if (m.rooflineRows.length !== want) {
      failures.push(`${name}: report.html roofline table has ${m.rooflineRows.length} row(s), expected ${want}`);
    } else if (!m.rooflineRows.every(c => parseFloat(c[4]) > 0 && parseFloat(c[8]) > 0)) {
      failures.push(`${name}: report.html roofline rows without GFLOPs or TFLOPS/s: ${JSON.stringify(m.rooflineRows[0])}`);
    }
    if (m.rooflineWidth > VIEWPORT.width) failures.push(`${name}: report.html roofline table wider than the page`);
  }
  // A staged load (@RolloutSweep, @RolloutCapacity) writes stages.json: its Stages section has the throughput-latency
  // chart, loaded, and one stage-table row per stage; a capacity search's sentence is on the page.
  if (existsSync(join(dir, 'stages.json'))) {
    const stages = JSON.parse(readFileSync(join(dir, 'stages.json'), 'utf8'));
    const s = await page.evaluate(() => {
      const chart = document.querySelector('#stage-chart');
      return {
        chartLoaded: chart !== null && chart.complete && chart.naturalWidth > 0,
        rows: document.querySelectorAll('#stage-table tbody tr').length,
        capacity: (document.querySelector('p.capacity') || {}).textContent || null,
      };
    });
    if (!s.chartLoaded) failures.push(`${name}: report.html throughput-latency chart missing or not loaded`);
    if (s.rows !== (stages.stages || []).length) {
      failures.push(`${name}: report.html stage table has ${s.rows} row(s), stages.json ${(stages.stages || []).length}`);
    }
    if (stages.capacity && s.capacity !== stages.capacity.message) {
      failures.push(`${name}: report.html capacity sentence ${JSON.stringify(s.capacity)} differs from stages.json`);
    }
  }
  // A per-step table under each multi-rank step timeline with gaps: every row marks exactly one straggler cell.
  const gapped = ((summary.trace || {}).stepTimeline || [])
    .filter(t => (t.ranks || []).length > 1 && (t.steps || []).some(st => (st.gapNs || []).some(g => g > 0)));
  if (gapped.length > 0 && (m.stepGapRows.length === 0 || m.stepGapRows.some(n => n !== 1))) {
    failures.push(`${name}: report.html step-gap table rows ${JSON.stringify(m.stepGapRows)} (one straggler each expected)`);
  }
  for (const phase of summary.phases || []) {
    if (phase.directory && !existsSync(join(dir, phase.directory, 'report.html'))) {
      failures.push(`${name}: no ${phase.directory}/report.html for phase ${phase.phase}`);
    }
  }
  const histories = [['history', summary.history], ...(summary.phases || []).map(p => [`history-${p.phase}`, p.history])]
    .filter(([, h]) => h && (h.trends || []).some(t => (t.points || []).length > 0));
  for (const [id, history] of histories) await checkHistory(page, name, id, history);
  console.log(`report-check: ${name}: report.html ${m.status}, ${m.verdictRows} verdict row(s), ${m.images} chart(s) `
    + `in ${m.columns} column(s), ${m.height} px tall` + (histories.length ? `, ${histories.length} history section(s)` : '')
    + (m.rooflineRows.length ? `, ${m.rooflineRows.length} roofline row(s)` : '')
    + (m.stepGapRows.length ? `, ${m.stepGapRows.length} step-gap row(s)` : ''));
}

// A history block with trends: its History section (section#history, a phase's section#history-PHASE) has one verdict
// row per history verdict and every trend chart loads inside a chart grid of at most two columns.
async function checkHistory(page, name, id, history) {
  const h = await page.evaluate(id => {
    const section = document.getElementById(id);
    if (!section || !section.classList.contains('history')) return null;
    const grid = section.querySelector('div.charts');
    const imgs = grid ? [...grid.querySelectorAll('img.chart')] : [];
    return {
      rows: section.querySelectorAll('table.history-verdicts tr.history-verdict').length,
      metrics: [...section.querySelectorAll('tr.history-verdict')].map(r => r.dataset.metric),
      images: imgs.length,
      outside: section.querySelectorAll('img.chart').length - imgs.length,
      broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
      columns: new Set(imgs.map(i => Math.round(i.getBoundingClientRect().left))).size,
      tallest: Math.max(0, ...imgs.map(i => i.getBoundingClientRect().height)),
    };
  }, id);
  if (!h) {
    failures.push(`${name}: report.html has no History section #${id} for summary.json's history trends`);
    return;
  }
  const verdicts = (history.verdicts || []).map(v => v.metric);
  if (h.rows !== verdicts.length || verdicts.some(v => !h.metrics.includes(v))) {
    failures.push(`${name}: #${id} has ${h.rows} history verdict row(s) (${h.metrics}), summary.json ${verdicts.length} `
      + `(${verdicts})`);
  }
  const trends = history.trends.filter(t => (t.points || []).length > 0).length;
  if (h.images !== trends || h.outside > 0) {
    failures.push(`${name}: #${id} shows ${h.images} trend chart(s) in its grid (${h.outside} outside), summary.json `
      + `has ${trends} trend(s)`);
  }
  if (h.broken.length > 0) failures.push(`${name}: #${id} trend chart(s) did not load: ${h.broken}`);
  if (h.images >= 2 && h.columns !== 2) failures.push(`${name}: #${id} trend charts in ${h.columns} column(s), not 2`);
  if (h.tallest > MAX_CHART_HEIGHT) {
    failures.push(`${name}: #${id} trend chart ${Math.round(h.tallest)} px tall, more than ${MAX_CHART_HEIGHT} px`);
  }
}

try {
  const pages = await browser.newPage({ viewport: VIEWPORT });
  for (const t of tests) await checkPage(pages, t);
  await pages.close();
  if (reportHtml !== '-') await checkAllure();
} finally {
  await browser.close();
}

async function checkAllure() {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1500 } });
  const base = pathToFileURL(resolve(reportHtml)).href;
  for (const [i, t] of tests.entries()) {
    const name = `${t.cls}.${t.method}`;
    await page.goto(`${base}#suites`);
    const node = page.locator('.node__title', { hasText: `${t.method}(` }).first();
    if (await node.count() === 0) {
      failures.push(`${name}: not in the report`);
      continue;
    }
    await page.goto(`${base}#suites/${await node.getAttribute('data-parentuid')}/${await node.getAttribute('data-uid')}`);
    await page.locator('.step__name').first().waitFor({ timeout: 15000 });
    const steps = await page.locator('.step__name').allInnerTexts();
    for (const phase of PHASES) {
      if (!steps.some(s => s.trim().startsWith(phase))) failures.push(`${name}: no step "${phase}" (steps: ${steps})`);
    }
    const attachments = (await page.locator('.attachment-row__name').allInnerTexts()).map(s => s.trim());
    for (const needed of ['latency table', 'kernel table']) {
      if (!attachments.includes(needed)) failures.push(`${name}: no "${needed}" attachment`);
    }
    const charts = attachments.filter(a => a.startsWith('chart: '));
    let loaded = 0;
    // exact names: a phase's charts ("PREFILL: chart: …") contain the test's chart names
    const row = chart => page.locator('.attachment-row').filter({
      has: page.locator('.attachment-row__name', { hasText: new RegExp(`^\\s*${chart.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }),
    }).first();
    for (const chart of charts) {
      await row(chart).click();
      const img = page.locator('.attachment__media, .test-result img').last();
      await img.waitFor({ timeout: 10000 });
      await page.waitForFunction(el => el.complete, await img.elementHandle(), { timeout: 10000 });
      if (await img.evaluate(el => el.naturalWidth > 0)) loaded++;
      if (screenshot && i === 0 && chart.startsWith('chart: TTFT')) {
        await page.screenshot({ path: screenshot });
      }
      await row(chart).click();
    }
    if (loaded < MIN_CHARTS) failures.push(`${name}: ${loaded} chart image(s) loaded, expected ≥ ${MIN_CHARTS}`);
    console.log(`report-check: ${name}: ${steps.length} steps, ${loaded} of ${charts.length} charts loaded, `
      + `attachments: ${attachments.length}`);
  }
}
if (failures.length > 0) {
  failures.forEach(f => console.error(`report-check: FAIL ${f}`));
  process.exit(1);
}
console.log(`report-check: ${tests.length} profiled example test(s) verified in Chromium`);
