// The host page's script (bundled for the browser by esbuild in browser_test.mjs): an MCP
// Apps host built on the official host bridge (`AppBridge` of @modelcontextprotocol/ext-apps).
// It renders an app's HTML in a sandboxed iframe (opaque origin, scripts only) under the
// Content-Security-Policy built from the resource's `_meta.ui.csp`, answers the app's
// `ui/initialize`, sends it the tool input and result that opened it, and forwards the app's
// `tools/call` to `window.hostCallTool` (bound by the test to the official TypeScript client
// connected to the server). Every result it forwards is also shown on the host page.

import {
    AppBridge,
    PostMessageTransport,
    buildAllowAttribute
} from '@modelcontextprotocol/ext-apps/app-bridge';

/** The iframe's CSP from `_meta.ui.csp`: nothing beyond the document unless declared. */
function contentSecurityPolicy(csp = {}) {
    const list = (origins, none) => (origins && origins.length ? origins.join(' ') : none);
    const resources = list(csp.resourceDomains, '');
    return [
        "default-src 'none'",
        `script-src 'unsafe-inline' ${resources}`.trim(),
        `style-src 'unsafe-inline' ${resources}`.trim(),
        `img-src data: ${resources}`.trim(),
        `font-src ${list(csp.resourceDomains, "'none'")}`,
        `connect-src ${list(csp.connectDomains, "'none'")}`,
        `frame-src ${list(csp.frameDomains, "'none'")}`,
        `base-uri ${list(csp.baseUriDomains, "'self'")}`
    ].join('; ');
}

/** `html` with the CSP as the first element of its head. */
function withCsp(html, csp) {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(csp)}">`;
    return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + meta) : meta + html;
}

function log(line) {
    const item = document.createElement('li');
    item.textContent = line;
    document.getElementById('host-log').append(item);
}

window.startHost = async ({ html, ui, toolName, toolInput, toolResult }) => {
    const iframe = document.createElement('iframe');
    iframe.id = 'app';
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.setAttribute('allow', buildAllowAttribute(ui?.permissions));
    iframe.style.border = ui?.prefersBorder === false ? 'none' : '1px solid #8892a0';
    document.getElementById('frame').append(iframe);

    const bridge = new AppBridge(
        null,
        { name: 'typed-mcp-test-host', version: '1.0.0' },
        { serverTools: {}, logging: {} },
        { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } }
    );
    bridge.oncalltool = async (params) => {
        log(`app → tools/call ${params.name} ${JSON.stringify(params.arguments ?? {})}`);
        const result = await window.hostCallTool(params);
        const shown = document.getElementById('host-result');
        shown.textContent = `${params.name}: ${JSON.stringify(result.structuredContent ?? result.content)}`;
        return result;
    };
    bridge.onsizechange = ({ height }) => {
        if (height != null) iframe.style.height = `${Math.min(height, 600)}px`;
    };
    const initialized = new Promise((resolve) => {
        bridge.oninitialized = resolve;
    });
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    iframe.srcdoc = withCsp(html, ui?.csp);
    await initialized;
    log(`app initialized: ${JSON.stringify(bridge.getAppVersion())}`);
    await bridge.sendToolInput({ arguments: toolInput });
    await bridge.sendToolResult(toolResult);
    log(`host → tool result of ${toolName}`);
};
