// Interop client: the official TypeScript SDK 1.x (npm `@modelcontextprotocol/sdk`, pinned in
// package.json) against a stdio or Streamable HTTP server. Legacy era only: this SDK knows no
// 2026-07-28.
//
//   node ts_client.mjs --mode MODE --limits FILE -- SERVER_COMMAND [ARG...]   (spawns, stdio)
//   node ts_client.mjs --mode MODE --limits FILE --http URL                   (Streamable HTTP)
//
// MODE: legacy-2025-11-25 (the SDK's own offer), legacy-2025-06-18, legacy-2025-03-26.
// Report, exit status and checks: see checks.mjs and README.md.

import { readFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { LEGACY_MODES, main } from './checks.mjs';

const packageJson = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
const { version } = JSON.parse(readFileSync(packageJson, 'utf8'));

async function connect({ mode, server, http }) {
    const offered = LEGACY_MODES[mode];
    const transport = http
        ? new StreamableHTTPClientTransport(http)
        : new StdioClientTransport({
              command: server[0],
              args: server.slice(1),
              env: { ...process.env },
              stderr: 'inherit'
          });
    // `Client.connect` always offers LATEST_PROTOCOL_VERSION (2025-11-25) and has no option for
    // another; it accepts any SUPPORTED_PROTOCOL_VERSIONS answer. To offer an older version the
    // outgoing initialize request is rewritten on its way into the transport.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
        if (message.method === 'initialize' && message.params?.protocolVersion !== offered) {
            message = { ...message, params: { ...message.params, protocolVersion: offered } };
        }
        return send(message, options);
    };
    // The client hands the accepted version to `transport.setProtocolVersion` when the transport
    // has one (HTTP transports do, stdio does not): that call is how the version is read here.
    // The HTTP transport's own method still runs (it sends the version as MCP-Protocol-Version).
    let negotiatedVersion;
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = protocolVersion => {
        negotiatedVersion = protocolVersion;
        setProtocolVersion?.(protocolVersion);
    };
    const client = new Client({ name: 'typed-mcp-interop-ts', version });
    await client.connect(transport);
    // Over HTTP, end the session with DELETE (`close()` alone only drops the connection).
    const end = http ? () => transport.terminateSession() : undefined;
    return { client, negotiatedVersion, end };
}

await main({ clientName: 'ts-sdk', clientVersion: version, modes: Object.keys(LEGACY_MODES), connect });
