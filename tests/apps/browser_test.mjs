// The MCP Apps browser test (driven by tests/apps_browser.rs):
//
//   node browser_test.mjs --server BIN --chromium PATH --out DIR
//
// 1. Connects the official TypeScript client (@modelcontextprotocol/client) to the server
//    BIN over stdio, declaring the MCP Apps extension (io.modelcontextprotocol/ui) for
//    `text/html;profile=mcp-app`; finds the tool linked to an app (`_meta.ui.resourceUri`),
//    reads the app's `ui://` resource and calls the tool, as a host does when the model calls it.
// 2. Opens host.html in Chromium (playwright-core, the browser at PATH) with host.mjs
//    bundled by esbuild: the official AppBridge renders the app in a sandboxed iframe.
// 3. Types a note in the app and clicks its button: the app calls `pin_note` through the
//    host (postMessage → AppBridge → this client → the server); waits until the host page
//    shows the tool's result and the app shows the note; writes DIR/notes-board.png.
//
// Prints one JSON report line on stdout; exits 1 with the reason on stderr on any failure.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';

const EXTENSION_ID = 'io.modelcontextprotocol/ui';
const RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';
const NOTE = 'Buy milk (typed in the browser)';
const here = new URL('.', import.meta.url).pathname;

const { values: args } = parseArgs({
    options: { server: { type: 'string' }, chromium: { type: 'string' }, out: { type: 'string' } }
});
for (const name of ['server', 'chromium', 'out']) {
    if (!args[name]) throw new Error(`--${name} is required`);
}

function check(condition, message) {
    if (!condition) throw new Error(message);
}

async function main() {
    const client = new Client(
        { name: 'typed-mcp-apps-host', version: '1.0.0' },
        { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } }
    );
    await client.connect(
        new StdioClientTransport({ command: args.server, args: [], stderr: 'inherit' })
    );
    let browser;
    try {
        check(
            client.getServerCapabilities()?.extensions?.[EXTENSION_ID],
            'the server does not declare the MCP Apps extension'
        );
        const { tools } = await client.listTools();
        const opener = tools.find((tool) => tool.name === 'show_board');
        const uri = opener?._meta?.ui?.resourceUri;
        check(uri?.startsWith('ui://'), `show_board is not linked to a ui:// app: ${JSON.stringify(opener)}`);
        const read = await client.readResource({ uri });
        const [contents] = read.contents;
        check(contents.mimeType === RESOURCE_MIME_TYPE, `the app's MIME type is ${contents.mimeType}`);
        const opened = await client.callTool({ name: 'show_board', arguments: {} });

        const bundle = await esbuild.build({
            entryPoints: [join(here, 'host.mjs')],
            bundle: true,
            format: 'esm',
            platform: 'browser',
            write: false,
            logLevel: 'error'
        });
        browser = await chromium.launch({
            executablePath: args.chromium,
            // The browser's own process sandbox needs user namespaces CI machines may lack;
            // the app's iframe sandbox (what this test is about) is unaffected.
            args: ['--no-sandbox'],
            timeout: 30_000
        });
        const page = await browser.newPage({ viewport: { width: 720, height: 640 } });
        const consoleErrors = [];
        page.on('console', (message) => {
            if (process.env.APPS_TEST_DEBUG) console.error('[browser]', message.type(), message.text());
            if (message.type() === 'error') consoleErrors.push(message.text());
        });
        page.on('pageerror', (error) => consoleErrors.push(String(error)));
        const calls = [];
        await page.exposeFunction('hostCallTool', async (params) => {
            calls.push(params);
            return client.callTool(params);
        });
        await page.setContent(readFileSync(join(here, 'host.html'), 'utf8'));
        await page.addScriptTag({ content: bundle.outputFiles[0].text, type: 'module' });
        await page.waitForFunction(() => typeof window.startHost === 'function');
        await page.evaluate((start) => window.startHost(start), {
            html: contents.text,
            ui: contents._meta?.ui,
            toolName: 'show_board',
            toolInput: {},
            toolResult: opened
        });

        const app = page.frameLocator('#app');
        await app.locator('#status').filter({ hasText: 'ready' }).waitFor({ timeout: 10_000 });
        await app.locator('#text').fill(NOTE);
        await app.locator('#pin').click();
        await page
            .locator('#host-result')
            .filter({ hasText: NOTE })
            .waitFor({ timeout: 10_000 });
        await app.locator('#notes li').filter({ hasText: NOTE }).waitFor({ timeout: 10_000 });
        const hostResult = await page.locator('#host-result').textContent();
        const sandbox = await page.locator('#app').getAttribute('sandbox');
        const screenshot = join(args.out, 'notes-board.png');
        await page.screenshot({ path: screenshot, fullPage: true });
        check(calls.length === 1 && calls[0].name === 'pin_note', `tool calls: ${JSON.stringify(calls)}`);
        check(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
        console.log(
            JSON.stringify({ ok: true, uri, sandbox, calls, hostResult, screenshot })
        );
    } finally {
        await browser?.close();
        await client.close();
    }
}

main().then(
    () => process.exit(0),
    (error) => {
        console.error(`apps browser test: ${error?.stack ?? error}`);
        process.exit(1);
    }
);
