// Interop client: the official TypeScript client 2.x (npm `@modelcontextprotocol/client`,
// pinned in package.json) against a stdio or Streamable HTTP server, in both protocol eras.
//
//   node ts2_client.mjs --mode MODE --limits FILE -- SERVER_COMMAND [ARG...]   (spawns, stdio)
//   node ts2_client.mjs --mode MODE --limits FILE --http URL                   (Streamable HTTP)
//
// MODE and the client options it maps to (facts: README.md):
//   legacy-2025-11-25   no options: the default `versionNegotiation` mode 'legacy', offering 2025-11-25
//   legacy-2025-06-18   supportedProtocolVersions: ['2025-06-18'] (the handshake offers the first
//   legacy-2025-03-26   supportedProtocolVersions: ['2025-03-26']  2025-era entry of the list)
//   auto                versionNegotiation: { mode: 'auto' } (server/discover, else initialize)
//   2026-07-28          versionNegotiation: { mode: { pin: '2026-07-28' } }
// Report, exit status and checks: see checks.mjs and README.md.

import { readFileSync } from 'node:fs';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { LEGACY_MODES, main } from './checks.mjs';

const packageJson = new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url);
const { version } = JSON.parse(readFileSync(packageJson, 'utf8'));

function clientOptions(mode) {
    if (mode === 'legacy-2025-11-25') return {};
    if (mode in LEGACY_MODES) return { supportedProtocolVersions: [LEGACY_MODES[mode]] };
    if (mode === 'auto') return { versionNegotiation: { mode: 'auto' } };
    return { versionNegotiation: { mode: { pin: mode } } };
}

async function connect({ mode, server, http }) {
    const transport = http
        ? new StreamableHTTPClientTransport(http)
        : new StdioClientTransport({
              command: server[0],
              args: server.slice(1),
              env: { ...process.env },
              stderr: 'inherit'
          });
    const client = new Client({ name: 'typed-mcp-interop-ts2', version }, clientOptions(mode));
    await client.connect(transport);
    // Over HTTP, end a session with DELETE (`close()` alone only drops the connection); a
    // stateless 2026-07-28 connection has no session to end.
    const end = http && transport.sessionId ? () => transport.terminateSession() : undefined;
    return { client, negotiatedVersion: client.getNegotiatedProtocolVersion(), end };
}

await main({
    clientName: 'ts-client',
    clientVersion: version,
    modes: [...Object.keys(LEGACY_MODES), 'auto', '2026-07-28'],
    connect
});
