// The interop checks shared by ts_client.mjs (@modelcontextprotocol/sdk 1.x) and ts2_client.mjs
// (@modelcontextprotocol/client 2.x): command line, probe sizes, the checks, the report.
// py_client.py implements the same checks for the Python SDK; keep the three in step.
//
// Usage of a client script:
//   node ts_client.mjs --mode MODE --limits FILE -- SERVER_COMMAND [ARG...]   (spawns the server, stdio)
//   node ts_client.mjs --mode MODE --limits FILE --http URL                   (Streamable HTTP)
// Prints ONE JSON report line on stdout; logs go to stderr. Exit status: 0 when connected (the
// verdicts are in the report), 2 when the connection failed, 64 on bad usage.

import { readFileSync } from 'node:fs';

export const META_KEY = 'io.typed-mcp/meta';
export const TOOL_NAMES = ['echo', 'add', 'sleep', 'spin', 'big', 'sum', 'lookup'];
export const LEGACY_MODES = {
    'legacy-2025-11-25': '2025-11-25',
    'legacy-2025-06-18': '2025-06-18',
    'legacy-2025-03-26': '2025-03-26'
};
// What a dual-era server must end up speaking in each mode.
const EXPECTED_VERSION = { ...LEGACY_MODES, auto: '2026-07-28', '2026-07-28': '2026-07-28' };

const log = (...parts) => console.error(`${process.argv[1].split('/').pop()}:`, ...parts);

class CheckFailed extends Error {}

function expect(condition, detail) {
    if (!condition) throw new CheckFailed(typeof detail === 'string' ? detail : JSON.stringify(detail).slice(0, 500));
}

/**
 * Parses `--mode M --limits F (--http URL | -- server argv...)`; exits 64 on bad usage.
 * `http` is the URL (or undefined), `server` the command line (empty with `--http`).
 */
export function parseArgs(argv, modes) {
    const options = { mode: undefined, limits: undefined, http: undefined, server: [] };
    for (let i = 0; i < argv.length; i += 1) {
        if (argv[i] === '--mode') options.mode = argv[++i];
        else if (argv[i] === '--limits') options.limits = argv[++i];
        else if (argv[i] === '--http') options.http = argv[++i];
        else if (argv[i] === '--') {
            options.server = argv.slice(i + 1);
            break;
        } else {
            options.server = argv.slice(i);
            break;
        }
    }
    let url;
    try {
        url = options.http === undefined ? undefined : new URL(options.http);
    } catch {
        url = null;
    }
    const oneTarget = (options.http === undefined) !== (options.server.length === 0);
    if (!modes.includes(options.mode) || !options.limits || !oneTarget || url === null) {
        log(`usage: --mode (${modes.join('|')}) --limits FILE (--http URL | -- SERVER_COMMAND [ARG...])`);
        process.exit(64);
    }
    return { ...options, http: url };
}

/** How big each probe must be to cross the limits the server runs with. */
export function probeSizes(limits) {
    const timeouts = limits.timeouts ?? {};
    const timeoutOf = tool => {
        if (timeouts.toolOverrides?.[tool] !== undefined) return timeouts.toolOverrides[tool];
        const category = timeouts.toolCategories?.[tool] ?? (tool === 'sleep' ? 'slow' : undefined);
        return timeouts.toolTimeouts?.[category] ?? timeouts.defaultTimeoutMs ?? 30000;
    };
    const request = limits.request ?? {};
    const arrayLimit = request.toolArrayLimits?.sum ?? request.maxArraySize ?? 10000;
    return {
        sleepMs: 20 * timeoutOf('sleep'),
        spinMs: 10 * timeoutOf('spin'),
        sumValues: arrayLimit + 1,
        bigBytes: 2 * (limits.response?.maxResponseBytes ?? 1048576)
    };
}

const textOf = result =>
    (result.content ?? [])
        .filter(block => block.type === 'text')
        .map(block => block.text)
        .join('');

const envelopeOf = result => {
    const structured = result.structuredContent;
    return structured && typeof structured === 'object' && 'ok' in structured ? structured : undefined;
};

const toolMeta = result => result._meta?.[META_KEY] ?? envelopeOf(result)?.meta ?? {};

const utf8Length = text => Buffer.byteLength(text, 'utf8');

/** A successful call's output: the envelope's data, else the text (parsed when JSON). */
function payload(result) {
    expect(!result.isError, { 'unexpected error': textOf(result).slice(0, 300) });
    const envelope = envelopeOf(result);
    if (envelope) {
        expect(envelope.ok === true, { envelope });
        return envelope.data;
    }
    try {
        return JSON.parse(textOf(result));
    } catch {
        return textOf(result);
    }
}

/** The structured error of a failed call, checked to carry `code`. */
function toolError(result, code) {
    expect(result.isError === true, { 'expected isError with': code, got: textOf(result).slice(0, 300) });
    const envelope = envelopeOf(result);
    let error;
    if (envelope) {
        expect(envelope.ok === false, { envelope });
        error = envelope.error ?? {};
    } else {
        // No structuredContent: the text starts with the code.
        error = { code: /^([A-Z_]+):/.exec(textOf(result))?.[1] ?? null, source: 'text' };
    }
    expect(error.code === code, { expected: code, got: error });
    return error;
}

/** Runs every check against a connected client; returns `{name: {ok, detail}}`. */
export async function runChecks(client, mode, negotiatedVersion, sizes) {
    const call = (name, args) => client.callTool({ name, arguments: args });
    const checks = [
        [
            'handshake',
            async () => {
                expect(negotiatedVersion === EXPECTED_VERSION[mode], { negotiated: negotiatedVersion ?? null });
                return negotiatedVersion;
            }
        ],
        [
            'tools/list',
            async () => {
                const { tools } = await client.listTools();
                const byName = Object.fromEntries(tools.map(tool => [tool.name, tool]));
                const missing = TOOL_NAMES.filter(name => !byName[name]);
                expect(missing.length === 0, { missing });
                const undescribed = TOOL_NAMES.filter(name => !byName[name].description);
                expect(undescribed.length === 0, { 'without description': undescribed });
                return Object.keys(byName).sort();
            }
        ],
        // The blocking timeout first: its thread keeps spinning while the other checks run.
        [
            'spin timeout',
            async () => {
                const error = toolError(await call('spin', { ms: sizes.spinMs }), 'TOOL_TIMEOUT');
                expect((error.retryable ?? true) === true, error);
                return error;
            }
        ],
        [
            'echo',
            async () => {
                const text = 'héllo interop';
                const result = await call('echo', { text });
                const data = payload(result);
                expect(data === text || data?.text === text, data);
                expect(textOf(result).includes(text), { text: textOf(result).slice(0, 200) });
                return data;
            }
        ],
        [
            'add',
            async () => {
                const data = payload(await call('add', { a: 2, b: 3.5 }));
                expect(data?.sum === 5.5, data);
                return data;
            }
        ],
        ['sleep', async () => payload(await call('sleep', { ms: 5 }))],
        ['spin', async () => payload(await call('spin', { ms: 5 }))],
        [
            'big',
            async () => {
                const result = await call('big', { bytes: 100 });
                const data = payload(result);
                expect(typeof data === 'string' && utf8Length(data) === 100, { length: String(data).length });
                expect(!toolMeta(result).truncated, toolMeta(result));
                return { bytes: 100 };
            }
        ],
        [
            'sum',
            async () => {
                const data = payload(await call('sum', { values: [1, 2, 3.5] }));
                expect(data?.sum === 6.5, data);
                return data;
            }
        ],
        [
            'lookup cached',
            async () => {
                const key = `interop-${mode}`;
                const first = await call('lookup', { key });
                const second = await call('lookup', { key });
                const [a, b] = [payload(first), payload(second)];
                expect(a?.key === key && 'computations' in a, { first: a });
                expect(JSON.stringify(b) === JSON.stringify(a), { first: a, second: b });
                expect(toolMeta(second).cached === true, { 'second meta': toolMeta(second) });
                return { computations: a.computations, cachedFlag: true };
            }
        ],
        [
            'resources/list',
            async () => {
                const uris = (await client.listResources()).resources.map(r => r.uri);
                expect(uris.includes('demo://readme'), { uris });
                return uris;
            }
        ],
        [
            'resources/read',
            async () => {
                const { contents } = await client.readResource({ uri: 'demo://readme' });
                expect(contents.length >= 1 && contents[0].uri === 'demo://readme', contents);
                expect(Boolean(contents[0].text), { 'first content': contents[0] });
                return { chars: contents[0].text.length };
            }
        ],
        [
            'prompts/list',
            async () => {
                const names = (await client.listPrompts()).prompts.map(p => p.name);
                expect(names.includes('greet'), { prompts: names });
                return names;
            }
        ],
        [
            'prompts/get',
            async () => {
                const { messages } = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
                const texts = messages.map(m => m.content?.text ?? '');
                expect(texts.some(t => t.includes('Ada')), { messages });
                return texts;
            }
        ],
        [
            'sleep timeout',
            async () => {
                const error = toolError(await call('sleep', { ms: sizes.sleepMs }), 'TOOL_TIMEOUT');
                expect((error.retryable ?? true) === true, error);
                return error;
            }
        ],
        [
            'validation failed',
            async () => {
                const error = toolError(await call('add', { a: 'two', b: 3 }), 'VALIDATION_FAILED');
                const paths = (error.validationErrors ?? []).map(v => v.path);
                expect(paths.includes('/a'), { paths, error });
                return { paths };
            }
        ],
        [
            'array too large',
            async () => {
                const values = Array.from({ length: sizes.sumValues }, () => 1);
                const error = toolError(await call('sum', { values }), 'ARRAY_TOO_LARGE');
                return { code: error.code, sent: sizes.sumValues };
            }
        ],
        [
            'big truncated',
            async () => {
                const result = await call('big', { bytes: sizes.bigBytes });
                const [data, meta] = [payload(result), toolMeta(result)];
                expect(meta.truncated === true, { meta });
                expect((meta.originalSizeBytes ?? 0) >= sizes.bigBytes, { meta });
                expect(typeof data === 'string' && utf8Length(data) < sizes.bigBytes, { length: String(data).length });
                return { requested: sizes.bigBytes, kept: utf8Length(data), meta };
            }
        ]
    ];
    const report = {};
    for (const [name, check] of checks) {
        try {
            report[name] = { ok: true, detail: (await check()) ?? null };
        } catch (error) {
            if (!(error instanceof CheckFailed)) log(`check ${name} raised:`, error);
            const detail = error instanceof CheckFailed ? error.message : `${error?.name}: ${error?.message}`;
            report[name] = { ok: false, detail: String(detail).slice(0, 500) };
        }
    }
    return report;
}

/**
 * Connects with `connect({mode, server, http})` (which resolves to `{client, negotiatedVersion}`
 * and optionally `end`, run before the client closes), runs the checks, prints the report and
 * exits. `http` is a `URL` for Streamable HTTP (then `server` is empty), else undefined.
 */
export async function main({ clientName, clientVersion, modes, connect }) {
    const options = parseArgs(process.argv.slice(2), modes);
    const sizes = probeSizes(JSON.parse(readFileSync(options.limits, 'utf8')));
    const report = { client: clientName, clientVersion, mode: options.mode };
    let connection;
    try {
        connection = await connect({ mode: options.mode, server: options.server, http: options.http });
    } catch (error) {
        log('connection failed:', error);
        report.negotiatedVersion = null;
        report.checks = { connect: { ok: false, detail: `${error?.name}: ${error?.message}`.slice(0, 500) } };
        await printReport(report);
        process.exit(2);
    }
    report.negotiatedVersion = connection.negotiatedVersion ?? null;
    report.checks = await runChecks(connection.client, options.mode, connection.negotiatedVersion, sizes);
    try {
        await connection.end?.();
    } catch (error) {
        log('ending the session failed:', error);
    }
    try {
        await connection.client.close();
    } catch (error) {
        log('closing the connection failed:', error);
    }
    await printReport(report);
    process.exit(0);
}

/** Writes the report line and waits until it is flushed (the process exits right after). */
const printReport = report => new Promise(resolve => process.stdout.write(`${JSON.stringify(report)}\n`, resolve));
