// Opens the rendered Allure report (a single index.html) in Debian's headless Chromium through playwright-core and
// checks, for every profiled example test (each directory with a summary.json under the examples' profiled-rollout
// output), that its phase steps, the latency table, at least four charts that load as images and the kernel table
// are there. Usage: node check.mjs REPORT_HTML PROFILED_ROLLOUT_DIR [SCREENSHOT_PNG]
import { chromium } from 'playwright-core';
import { readdirSync, existsSync } from 'node:fs';
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
try {
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
    for (const chart of charts) {
      await page.locator('.attachment-row', { hasText: chart }).first().click();
      const img = page.locator('.attachment__media, .test-result img').last();
      await img.waitFor({ timeout: 10000 });
      await page.waitForFunction(el => el.complete, await img.elementHandle(), { timeout: 10000 });
      if (await img.evaluate(el => el.naturalWidth > 0)) loaded++;
      if (screenshot && i === 0 && chart.startsWith('chart: TTFT')) {
        await page.screenshot({ path: screenshot });
      }
      await page.locator('.attachment-row', { hasText: chart }).first().click();
    }
    if (loaded < MIN_CHARTS) failures.push(`${name}: ${loaded} chart image(s) loaded, expected ≥ ${MIN_CHARTS}`);
    console.log(`report-check: ${name}: ${steps.length} steps, ${loaded} of ${charts.length} charts loaded, `
      + `attachments: ${attachments.length}`);
  }
} finally {
  await browser.close();
}
if (failures.length > 0) {
  failures.forEach(f => console.error(`report-check: FAIL ${f}`));
  process.exit(1);
}
console.log(`report-check: ${tests.length} profiled example test(s) verified in Chromium`);
