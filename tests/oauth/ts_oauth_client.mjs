// The official TypeScript SDK client (npm `@modelcontextprotocol/sdk`, installed in
// tests/interop/node_modules by tests/interop/setup.sh) against a protected MCP server, with
// its `authProvider`: discovery (RFC 9728, then the authorization server's metadata), dynamic
// client registration, authorization code + PKCE with the resource indicator, then
// tools/list and a tools/call. This script plays the user at oidc-provider's development
// login and consent pages.
//
// Usage: node ts_oauth_client.mjs URL
// For https, the test CA is given to node with NODE_EXTRA_CA_CERTS.
// Prints one JSON line on stdout: {"ok": true, "tools": [...], "echo": "...",
// "authorized_at_pages": true, "registered": true, "token_type": "...", "scope": "..."} or
// {"ok": false, "error": "..."}; exit status 0 only when ok.

const sdk = new URL('../interop/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', sdk));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', sdk));
const { UnauthorizedError } = await import(new URL('client/auth.js', sdk));

// A loopback redirect (RFC 8252): never contacted, the script reads the code off the URL.
const REDIRECT = 'http://127.0.0.1:9/callback';

/** The OAuth client state, in memory. */
class Memory {
    constructor() {
        this.client = undefined;
        this.saved = undefined;
        this.verifier = undefined;
        this.authorizationUrl = undefined;
    }
    get redirectUrl() {
        return REDIRECT;
    }
    get clientMetadata() {
        return {
            client_name: 'typed-mcp auth test (typescript)',
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
            scope: 'notes:read',
        };
    }
    clientInformation() {
        return this.client;
    }
    saveClientInformation(information) {
        this.client = information;
    }
    tokens() {
        return this.saved;
    }
    saveTokens(tokens) {
        this.saved = tokens;
    }
    redirectToAuthorization(url) {
        this.authorizationUrl = url.toString();
    }
    saveCodeVerifier(verifier) {
        this.verifier = verifier;
    }
    codeVerifier() {
        return this.verifier;
    }
}

const unescape = (text) =>
    text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The first form's action and its hidden fields (plus login and password when asked). */
function formFields(page) {
    const action = /<form[^>]*action="([^"]+)"/.exec(page);
    if (!action) throw new Error('no form on the page');
    const fields = {};
    for (const [, name, value] of page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
        fields[unescape(name)] = unescape(value);
    }
    if (page.includes('name="login"')) Object.assign(fields, { login: 'alice', password: 'any' });
    return [unescape(action[1]), fields];
}

/** Follows the authorization URL through the login and consent pages to the redirect URI. */
async function playUser(authorizationUrl) {
    const cookies = new Map();
    const send = async (url, init = {}) => {
        const headers = { ...(init.headers ?? {}) };
        if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const response = await fetch(url, { ...init, headers, redirect: 'manual' });
        for (const line of response.headers.getSetCookie()) {
            const [pair] = line.split(';');
            const at = pair.indexOf('=');
            cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
        }
        return response;
    };
    let location = authorizationUrl;
    for (let round = 0; round < 20; round += 1) {
        if (location.startsWith(REDIRECT)) return location;
        let response = await send(location);
        while (response.status === 302 || response.status === 303) {
            location = new URL(response.headers.get('location'), location).toString();
            if (location.startsWith(REDIRECT)) return location;
            response = await send(location);
        }
        const [action, fields] = formFields(await response.text());
        const target = new URL(action, location).toString();
        response = await send(target, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(fields).toString(),
        });
        if (response.status !== 302 && response.status !== 303) {
            throw new Error(`the form post answered ${response.status}`);
        }
        location = new URL(response.headers.get('location'), target).toString();
    }
    throw new Error('the authorization did not come back to the redirect URI');
}

async function main() {
    const url = new URL(process.argv[2]);
    const memory = new Memory();
    const client = () => new Client({ name: 'typed-mcp-auth-test-ts', version: '1' });

    // First connection: answered 401, the SDK discovers, registers and sends the user to
    // the authorization URL (redirectToAuthorization), then throws UnauthorizedError.
    const first = new StreamableHTTPClientTransport(url, { authProvider: memory });
    let refused = false;
    try {
        await client().connect(first);
    } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        refused = true;
    }
    if (!refused || !memory.authorizationUrl) throw new Error('the server did not ask for authorization');
    const landed = new URL(await playUser(memory.authorizationUrl));
    const code = landed.searchParams.get('code');
    if (!code) throw new Error(`no code in the redirect: ${landed.searchParams.get('error')}`);
    await first.finishAuth(code);

    // Second connection, with the token.
    const transport = new StreamableHTTPClientTransport(url, { authProvider: memory });
    const connected = client();
    await connected.connect(transport);
    const tools = (await connected.listTools()).tools.map((tool) => tool.name).sort();
    const echo = await connected.callTool({ name: 'echo', arguments: { text: 'hello through OAuth' } });
    const text = echo.content.map((block) => block.text ?? '').join('');
    await transport.terminateSession().catch(() => {});
    await connected.close();
    return {
        ok: true,
        tools,
        echo: text,
        authorized_at_pages: true,
        registered: memory.client !== undefined,
        token_type: memory.saved?.token_type ?? null,
        scope: memory.saved?.scope ?? null,
    };
}

try {
    const report = await main();
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exit(0);
} catch (error) {
    console.error(error);
    process.stdout.write(`${JSON.stringify({ ok: false, error: String(error) })}\n`);
    process.exit(1);
}
