// The OpenID provider the auth tests run against: npm `oidc-provider` (pinned in
// package.json / package-lock.json, installed by setup.sh) with a small configuration of ours.
//
// Usage: node provider.mjs [--port N] [--tls CERT_PEM KEY_PEM]
//   (default: an ephemeral port on 127.0.0.1, plain HTTP; with --tls, HTTPS with that
//   certificate and key, and an https:// issuer)
//
// Prints one line on stdout once it listens, then nothing else there (logs go to stderr):
//   {"ready":true,"issuer":"http://127.0.0.1:PORT","port":PORT}
//
// What it offers (all on 127.0.0.1):
// - Discovery: /.well-known/openid-configuration (oidc-provider serves no RFC 8414 path; this
//   launcher answers /.well-known/oauth-authorization-server with the same document too).
// - Resource indicators (RFC 8707): any http(s) resource is accepted; its access tokens are
//   JWTs (RFC 9068, RS256 unless the client says otherwise) with `aud` = the resource, and
//   the scopes `notes:read notes:write` (plus `openid` for OpenID requests).
// - Clients (all in clients below):
//   - `mcp-cc` / `cc-secret`: client credentials, client_secret_basic or _post, JWT tokens;
//   - `mcp-cc-short` / `cc-secret`: as mcp-cc, but its access tokens live 1 second;
//   - `mcp-cc-es256` / `cc-secret`: as mcp-cc, tokens signed with ES256;
//   - `mcp-cc-opaque` / `cc-secret`: as mcp-cc, opaque tokens (for introspection);
//   - `mcp-rs` / `rs-secret`: the resource server's own client, allowed to introspect;
//   - `mcp-public`: public (PKCE) authorization-code client, native, redirect
//     http://127.0.0.1/callback (any loopback port, RFC 8252).
// - Dynamic client registration (RFC 7591) at /reg, open (the MCP SDK clients use it).
// - Authorization code + PKCE (S256) with the development login and consent pages
//   (devInteractions): GET the authorization URL, follow redirects to /interaction/UID, POST
//   `prompt=login&login=ANY&password=ANY` there, then POST `prompt=consent` to
//   /interaction/UID (keep cookies), and follow redirects to the client's redirect URI.
// - Introspection (RFC 7662) at /token/introspection (authenticate as mcp-rs).
// - Test-only control:
//   - POST /__test/rotate: new signing keys (new kids); the JWKS then lists only the new
//     keys. Answers {"kids":[...]}. (Opaque tokens issued before are no longer active.)
//   - GET /__test/kids: the kids the JWKS lists now.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { generateKeyPair, exportJWK } from 'jose';
import Provider, { errors } from 'oidc-provider';

// stdout carries only the ready line: oidc-provider's notices (console.info) and any other
// console output go to stderr, so that nothing is written to a pipe the test stopped reading.
console.log = console.error;
console.info = console.error;

const SCOPES = 'notes:read notes:write';

let port = 0;
let tls = null;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--port') port = Number(args[++i]);
  if (args[i] === '--tls') tls = { cert: readFileSync(args[++i]), key: readFileSync(args[++i]) };
}

let generation = 0;
async function signingKeys() {
  generation += 1;
  const keys = [];
  for (const alg of ['RS256', 'ES256']) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(privateKey);
    keys.push({ ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-gen${generation}` });
  }
  return { keys };
}

const clients = [
  ...['mcp-cc', 'mcp-cc-short', 'mcp-cc-es256', 'mcp-cc-opaque'].map((client_id) => ({
    client_id,
    client_secret: 'cc-secret',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: SCOPES,
    token_endpoint_auth_method: 'client_secret_basic',
  })),
  {
    client_id: 'mcp-rs',
    client_secret: 'rs-secret',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'mcp-public',
    application_type: 'native',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
  },
];

function configuration(jwks) {
  return {
    clients,
    jwks,
    scopes: ['openid', 'offline_access', ...SCOPES.split(' ')],
    claims: { openid: ['sub'] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    pkce: { required: () => true },
    clientBasedCORS: () => true,
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        allowedPolicy: async (ctx) => ctx.oidc.client.clientId === 'mcp-rs',
      },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource, client) => {
          if (!/^https?:\/\//.test(resource)) throw new errors.InvalidTarget();
          const info = {
            scope: SCOPES,
            audience: resource,
            accessTokenTTL: client?.clientId === 'mcp-cc-short' ? 1 : 600,
            accessTokenFormat: client?.clientId === 'mcp-cc-opaque' ? 'opaque' : 'jwt',
          };
          if (client?.clientId === 'mcp-cc-es256') info.jwt = { sign: { alg: 'ES256' } };
          return info;
        },
      },
    },
  };
}

let handler = null;
let issuer = null;

async function build() {
  const jwks = await signingKeys();
  const provider = new Provider(issuer, configuration(jwks));
  provider.on('server_error', (_ctx, error) => console.error('provider server_error:', error));
  return { callback: provider.callback(), kids: jwks.keys.map((key) => key.kid), provider };
}

let current = null;

const listener = async (req, res) => {
  try {
    const url = new URL(req.url, issuer);
    if (url.pathname === '/__test/rotate' && req.method === 'POST') {
      // A new Provider with new keys; the in-memory adapter keeps grants and tokens.
      current = await build();
      handler = current.callback;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kids: current.kids }));
      return;
    }
    if (url.pathname === '/__test/kids') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kids: current.kids }));
      return;
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      req.url = '/.well-known/openid-configuration';
    }
    handler(req, res);
  } catch (error) {
    console.error('provider launcher error:', error);
    res.writeHead(500);
    res.end();
  }
};
const server = tls ? https.createServer(tls, listener) : http.createServer(listener);

server.listen(port, '127.0.0.1', async () => {
  const { port: bound } = server.address();
  issuer = `${tls ? 'https' : 'http'}://127.0.0.1:${bound}`;
  current = await build();
  handler = current.callback;
  process.stdout.write(`${JSON.stringify({ ready: true, issuer, port: bound })}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
// The test that started us may die without a signal: stop when stdin closes.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
