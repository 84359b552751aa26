//! One connection: the era gate, then dispatch on the method, then params validated with the
//! generated validator of that method's params in that era, then decoded.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::Value;

use super::builder::ServerState;
use super::era::{batch_policy, negotiate_legacy, supported_versions, Era, Session, SessionState};
use super::outbound::respond;
use super::pagination::pager;
use super::params::{decode, invalid_params, invalid_request, method_not_found, violation};
use super::tool_call::CallRequest;
use crate::generated::protocol::{
    validate, CompleteRequestParams, DiscoverResult, EmptyResult, GetPromptRequestParams,
    InitializeRequestParams, InitializeResult, LegacyCallToolRequestParams,
    LegacyCompleteRequestParams, LegacyGetPromptRequestParams, LegacyReadResourceRequestParams,
    LegacySetLevelRequestParams, LegacySubscribeRequestParams, PingRequestParams,
    ReadResourceRequestParams, RequestParams, ResultMeta, ResultType,
};
use crate::server::{
    Handler, HandlerResult, NotificationContext, RequestContext, SharedBatchPolicy,
};

mod route;

use route::{requested_version, Route};

/// The methods this server answers (anything else is `-32601`).
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// The request loop's handler for one connection.
pub(crate) struct Connection {
    state: Arc<ServerState>,
    /// This connection's number in the server's subscriptions.
    id: u64,
    /// Where notifications outside any request go (an HTTP session's event stream); the
    /// request's own peer when unset (stdio: the one output).
    standalone: std::sync::Mutex<Option<crate::server::Peer>>,
    /// The server's requests to the client awaiting an answer (2025 versions).
    pending: Arc<super::client_requests::PendingRequests>,
    session: Session,
    batches: SharedBatchPolicy,
    /// One request of the stateless HTTP transport: 2026-07-28 only, no handshake.
    stateless: bool,
    /// Fires when the server stops reading this connection: listen streams end gracefully.
    closing: tokio_util::sync::CancellationToken,
    /// Whether this connection ever registered with the server's subscriptions: only then
    /// does dropping it take their lock (a stateless HTTP request is a connection of its own).
    registered: std::sync::atomic::AtomicBool,
}

impl Connection {
    pub(crate) fn new(state: Arc<ServerState>, batches: SharedBatchPolicy) -> Self {
        Self {
            id: state.subscriptions.connection_id(),
            standalone: std::sync::Mutex::new(None),
            pending: Arc::default(),
            state,
            session: Session::new(),
            batches,
            stateless: false,
            closing: tokio_util::sync::CancellationToken::new(),
            registered: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Notes that this connection registers with the server's subscriptions (before it does).
    fn register(&self) {
        self.registered
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Sends this connection's notifications outside requests to `peer`.
    #[cfg(feature = "http")]
    pub(crate) fn set_standalone(&self, peer: crate::server::Peer) {
        *self
            .standalone
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(peer);
    }

    /// Where this connection's notifications outside requests go: the standalone stream
    /// when set, else `peer` (stdio: the one output).
    fn notification_peer(&self, peer: &crate::server::Peer) -> crate::server::Peer {
        self.standalone
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .unwrap_or_else(|| peer.clone())
    }

    /// A connection for one stateless (2026-07-28) HTTP request: `initialize` and `ping` do
    /// not exist there (`-32601`). `closing` ends its listen stream with the closing result
    /// (the HTTP service's shutdown).
    #[cfg(feature = "http")]
    pub(crate) fn stateless(
        state: Arc<ServerState>,
        closing: tokio_util::sync::CancellationToken,
    ) -> Self {
        let mut connection = Self::new(
            state,
            SharedBatchPolicy::new(crate::jsonrpc::BatchPolicy::Reject),
        );
        connection.stateless = true;
        connection.closing = closing;
        connection
    }

    /// The version `initialize` negotiated, once it has.
    #[cfg(feature = "http")]
    pub(crate) fn legacy_version(&self) -> Option<&'static str> {
        match self.session.state() {
            SessionState::Legacy { version, .. } => Some(version),
            SessionState::Undecided | SessionState::Modern => None,
        }
    }

    /// Passes a notification on, as the request loop would.
    #[cfg(feature = "http")]
    pub(crate) async fn deliver_notification(
        &self,
        ctx: NotificationContext,
        method: &str,
        params: Option<&RawValue>,
    ) {
        self.handle_notification(ctx, method, params).await;
    }

    /// Passes a response from the client on, as the request loop would.
    #[cfg(feature = "http")]
    pub(crate) async fn deliver_response(&self, response: crate::jsonrpc::Response<'static>) {
        self.handle_response(response).await;
    }

    /// The apps to hide from this request's client (the MCP Apps extension).
    fn hidden_apps<'s>(
        &self,
        sets: &'s super::catalog::Sets,
        era: Era,
        params: Option<&Value>,
    ) -> Option<&'s super::apps::Apps> {
        super::apps::hidden(sets, era, || self.session.client_capabilities(), params)
    }

    async fn dispatch(
        &self,
        ctx: RequestContext,
        method: &str,
        // Borrowed from `handle_request`, which owns the parsed params: `tools/call` takes
        // them (decoded by value); an owned argument would be kept twice in this future.
        request_params: &mut Params<'_>,
        era: Era,
    ) -> HandlerResult {
        let params = request_params.parsed.as_ref();
        let state = &*self.state;
        let hints = &state.hints;
        // One snapshot of the tools, resources and prompts for the whole request.
        let sets = state.catalog.current();
        match (method, era) {
            ("ping", Era::Legacy(_)) => {
                let _params: Option<PingRequestParams> =
                    decode(method, params, validate::ping_request_params, true)?;
                respond(&EmptyResult { meta: None })
            }
            ("ping" | "server/discover", _) => Err(method_not_found()),
            ("tools/list", _) => sets.tools.list(
                era,
                hints,
                &pager(state, method, params, era)?,
                self.hidden_apps(&sets, era, params),
            ),
            ("resources/list", _) => sets.resources.list(
                era,
                hints,
                &pager(state, method, params, era)?,
                self.hidden_apps(&sets, era, params),
            ),
            ("resources/templates/list", _) => {
                let pager = pager(state, method, params, era)?;
                sets.resources.list_templates(era, hints, &pager)
            }
            ("prompts/list", _) => {
                sets.prompts
                    .list(era, hints, &pager(state, method, params, era)?)
            }
            ("tools/call", Era::Legacy(_)) => {
                // The params and the capabilities end in this block (a local once borrowed
                // stays in the future until its scope ends): only what the call needs is
                // kept across it.
                let (name, arguments, progress_token, client, extensions) = {
                    let p: LegacyCallToolRequestParams = super::call_params::decode_call(
                        method,
                        request_params.parsed.take(),
                        validate::legacy_call_tool_request_params,
                    )?;
                    let declared = self.session.client_capabilities().unwrap_or_default();
                    super::apps::check_callable(&sets, &p.name, &declared)?;
                    sets.tools.check_capabilities(&p.name, &declared)?;
                    let extensions = super::extensions::negotiate(
                        sets.capabilities.extensions.as_ref(),
                        &declared,
                    );
                    let progress_token = p.meta.and_then(|meta| meta.progress_token);
                    let client = super::client_requests::requester(
                        Arc::clone(&self.pending),
                        ctx.peer().clone(),
                        declared,
                    );
                    (p.name, p.arguments, progress_token, client, extensions)
                };
                let log_level = self.session.log_level();
                sets.tools
                    .call(CallRequest {
                        ctx: &ctx,
                        era,
                        name: &name,
                        arguments,
                        progress_token,
                        log_level,
                        client: Some(client),
                        extensions,
                    })
                    .await
            }
            ("tools/call", Era::Modern) => {
                // The params end in this block, as above.
                let (name, arguments, progress_token, log_level, inputs, extensions, task) = {
                    // Read from the params' text already (`call_params::scan`), or decoded
                    // from their `Value` now.
                    let call = match request_params.scanned.take() {
                        Some(scanned) => scanned.call,
                        None => super::call_params::decode_modern_call(
                            method,
                            request_params.parsed.take(),
                            validate::call_tool_request_params,
                        )?,
                    };
                    super::apps::check_callable(&sets, &call.name, &call.capabilities)?;
                    let (support, after_input) =
                        sets.tools.task_support(&call.name, &call.capabilities)?;
                    let extensions = super::extensions::negotiate(
                        sets.capabilities.extensions.as_ref(),
                        &call.capabilities,
                    );
                    let as_task = super::tasks::methods::as_task(support, &extensions)?;
                    // A task that starts in the handler runs as a plain call until then.
                    let task = (as_task && !after_input).then(|| call.capabilities.clone());
                    // Questions to the client become an input_required result; a retry brings
                    // the answers (and the sealed answers of earlier rounds), for this tool
                    // with these arguments only. The scope (a canonical copy of the
                    // arguments) is computed here only to open a state the retry carries;
                    // the inputs keep it (not this future, across the handler).
                    let scope = super::input_required::carries_state(&call.extra).then(|| {
                        let arguments = call.arguments.clone().map_or(Value::Null, Value::Object);
                        super::input_required::request_scope("tool", &call.name, &arguments)
                    });
                    let inputs = super::input_required::inputs_of(
                        &state.state_key,
                        scope,
                        &call.extra,
                        call.capabilities,
                    )?;
                    if as_task && after_input {
                        inputs.allow_task();
                    }
                    (
                        call.name,
                        call.arguments,
                        call.progress_token,
                        call.log_level,
                        inputs,
                        extensions,
                        task,
                    )
                };
                if let Some(declared) = task {
                    let call = super::tasks::methods::TaskCall {
                        name: name.into_owned(),
                        arguments,
                        declared,
                        extensions,
                        answered: None,
                    };
                    // Boxed: only calls that become tasks pay for its size.
                    return Box::pin(super::tasks::methods::start(
                        state,
                        Arc::clone(&sets),
                        &ctx,
                        call,
                    ))
                    .await;
                }
                let answer = sets
                    .tools
                    .call(CallRequest {
                        ctx: &ctx,
                        era,
                        name: &name,
                        arguments,
                        progress_token,
                        log_level,
                        client: Some(inputs.requester()),
                        extensions,
                    })
                    .await;
                // The arguments went to the handler: a scope not computed above is computed
                // from the params as received, only when the handler asked a question.
                if let Some(input_required) = inputs.result(&state.state_key, || {
                    super::input_required::tool_scope(&name, request_params.raw)
                }) {
                    return input_required;
                }
                if !inputs.task_requested() {
                    return answer;
                }
                // Every question answered, the handler asked to run as a task: it runs again
                // as one (boxed, as above; the first run's answer is not kept across it).
                drop(answer);
                Box::pin(super::tasks::methods::start_after_input(
                    state,
                    Arc::clone(&sets),
                    &ctx,
                    &name,
                    request_params.raw,
                    &inputs,
                ))
                .await
            }
            ("resources/read", Era::Legacy(_)) => {
                let p: LegacyReadResourceRequestParams = decode(
                    method,
                    params,
                    validate::legacy_read_resource_request_params,
                    false,
                )?;
                let hidden = self.hidden_apps(&sets, era, params);
                sets.resources.read(&p.uri, era, hints, hidden)
            }
            ("resources/read", Era::Modern) => {
                let p: ReadResourceRequestParams = decode(
                    method,
                    params,
                    validate::read_resource_request_params,
                    false,
                )?;
                let hidden = self.hidden_apps(&sets, era, params);
                sets.resources.read(&p.uri, era, hints, hidden)
            }
            ("prompts/get", Era::Legacy(_)) => {
                let p: LegacyGetPromptRequestParams = decode(
                    method,
                    params,
                    validate::legacy_get_prompt_request_params,
                    false,
                )?;
                let declared = self.session.client_capabilities().unwrap_or_default();
                let client = super::client_requests::requester(
                    Arc::clone(&self.pending),
                    ctx.peer().clone(),
                    declared,
                );
                sets.prompts
                    .get(
                        &p.name,
                        p.arguments.map(to_json_map),
                        era,
                        Some(client),
                        ctx.shared_auth(),
                    )
                    .await
            }
            ("prompts/get", Era::Modern) => {
                // The params (656 bytes) end in this block, as for tools/call.
                let (name, arguments, inputs) = {
                    let p: GetPromptRequestParams =
                        decode(method, params, validate::get_prompt_request_params, false)?;
                    let scope = super::input_required::request_scope(
                        "prompt",
                        &p.name,
                        &serde_json::to_value(&p.arguments).unwrap_or_default(),
                    );
                    let declared =
                        serde_json::to_value(&p.meta.io_modelcontextprotocol_client_capabilities)
                            .unwrap_or_default();
                    let inputs = super::input_required::inputs_of(
                        &state.state_key,
                        Some(scope),
                        &p.extra,
                        declared,
                    )?;
                    (p.name, p.arguments.map(to_json_map), inputs)
                };
                let answer = sets
                    .prompts
                    .get(
                        &name,
                        arguments,
                        era,
                        Some(inputs.requester()),
                        ctx.shared_auth(),
                    )
                    .await;
                // The scope was given to the inputs above: never computed again.
                match inputs.result(&state.state_key, String::new) {
                    Some(input_required) => input_required,
                    None => answer,
                }
            }
            ("completion/complete", Era::Legacy(_)) => {
                let p: LegacyCompleteRequestParams = decode(
                    method,
                    params,
                    validate::legacy_complete_request_params,
                    false,
                )?;
                super::completion::complete(&sets, &p.ref_, &p.argument, p.context.as_ref(), era)
            }
            ("completion/complete", Era::Modern) => {
                let p: CompleteRequestParams =
                    decode(method, params, validate::complete_request_params, false)?;
                super::completion::complete(&sets, &p.ref_, &p.argument, p.context.as_ref(), era)
            }
            ("resources/subscribe" | "resources/unsubscribe", Era::Legacy(_)) => {
                let p: LegacySubscribeRequestParams = decode(
                    method,
                    params,
                    validate::legacy_subscribe_request_params,
                    false,
                )?;
                if method == "resources/subscribe" {
                    sets.resources.check_known(&p.uri, era)?;
                    let peer = self.notification_peer(ctx.peer());
                    self.register();
                    state.subscriptions.subscribe(self.id, peer, &p.uri);
                } else {
                    let _had = state.subscriptions.unsubscribe(self.id, &p.uri);
                }
                respond(&EmptyResult { meta: None })
            }
            ("tasks/get" | "tasks/update" | "tasks/cancel", Era::Modern) => {
                Box::pin(super::tasks::methods::answer(
                    state, &sets, &ctx, method, params,
                ))
                .await
            }
            ("subscriptions/listen", Era::Modern) => {
                let closing = &self.closing;
                self.register();
                // Boxed: a rare, long-lived request; inline, every request's future would
                // carry its size (see future_size.rs).
                Box::pin(super::listen::listen(
                    state, &sets, self.id, &ctx, params, closing,
                ))
                .await
            }
            #[cfg(feature = "skills")]
            ("skills/list" | "skills/get" | "resources/directory/read", _) => {
                super::skills::methods::answer(state, method, params)
            }
            ("logging/setLevel", Era::Legacy(_)) => {
                let p: LegacySetLevelRequestParams = decode(
                    method,
                    params,
                    validate::legacy_set_level_request_params,
                    false,
                )?;
                self.session.set_log_level(p.level);
                respond(&EmptyResult { meta: None })
            }
            _ => Err(method_not_found()),
        }
    }

    fn initialize(&self, params: Option<&Value>) -> HandlerResult {
        let p: InitializeRequestParams = decode(
            "initialize",
            params,
            validate::initialize_request_params,
            false,
        )?;
        let version = negotiate_legacy(&p.protocol_version);
        if !self.session.open_legacy(version) {
            return Err(invalid_request("the session is already initialized"));
        }
        if let Ok(capabilities) = serde_json::to_value(&p.capabilities) {
            self.session.set_client_capabilities(capabilities);
        }
        // Batches are processed in a 2025-03-26 session only, from the next frame on.
        self.batches.set(batch_policy(version));
        tracing::debug!(
            client = %p.client_info.name,
            offered = %p.protocol_version,
            version,
            "legacy session opened"
        );
        let state = &*self.state;
        respond(&InitializeResult {
            capabilities: state.catalog.current().capabilities.clone(),
            instructions: state.instructions.clone(),
            meta: None,
            protocol_version: version.to_owned(),
            server_info: state.info.clone(),
        })
    }

    fn discover(&self, params: Option<&Value>) -> HandlerResult {
        let _params: RequestParams =
            decode("server/discover", params, validate::request_params, false)?;
        let state = &*self.state;
        respond(&DiscoverResult {
            cache_scope: state.hints.scope,
            capabilities: state.catalog.current().capabilities.clone(),
            instructions: state.instructions.clone(),
            meta: Some(ResultMeta {
                io_modelcontextprotocol_server_info: Some(state.info.clone()),
                extra: serde_json::Map::new(),
            }),
            result_type: ResultType::Complete,
            supported_versions: supported_versions(),
            ttl_ms: state.hints.ttl_ms,
        })
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if *self.registered.get_mut() {
            self.state.subscriptions.drop_connection(self.id);
        }
    }
}

/// A request's params: parsed (`None` when absent, when read by the text scan, and once
/// `tools/call` has taken them) and as received. One borrow of this in [`Connection::dispatch`]'s future, not two.
struct Params<'a> {
    /// The params as a `Value`.
    parsed: Option<Value>,
    /// The params' text (a 2026-07-28 call's question reads its arguments again from it).
    raw: Option<&'a RawValue>,
    /// A 2026-07-28 `tools/call` read from that text (then `parsed` is `None`); boxed, so
    /// this future keeps a pointer to it.
    scanned: Option<Box<super::call_params::scan::Scanned<'a>>>,
}

impl Params<'_> {
    /// The protocol version the request names in `params._meta` (see [`requested_version`]).
    fn requested_version(&self) -> Option<Option<&str>> {
        match &self.scanned {
            Some(scanned) => Some(Some(scanned.version)),
            None => requested_version(self.parsed.as_ref()),
        }
    }
}

/// How long a request that selects no era waits for a concurrent `initialize` to finish.
const HANDSHAKE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

impl Handler for Connection {
    // An `async` block, not an `async fn`: an `async fn`'s future keeps its arguments
    // twice (as passed, and moved into its body).
    #[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
    fn handle_request(
        &self,
        mut ctx: RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> impl std::future::Future<Output = HandlerResult> + Send {
        async move {
            if !METHODS.contains(&method) {
                return Err(method_not_found());
            }
            // A 2026-07-28 call of the usual shape is read from its text, by the index of its
            // members when the frame's check recorded one (stdio), else in the walk that
            // delimits them (`call_params::scan`); any other request into a `Value`. A 2025
            // session's calls are not scanned (a versioned one is refused on it). The index
            // is taken and dropped here, not held across the awaits below.
            let params_index = ctx.take_params_index();
            let scanned = match (method, params) {
                ("tools/call", Some(raw))
                    if !matches!(self.session.state(), SessionState::Legacy { .. }) =>
                {
                    super::call_params::scan::scan(raw.get(), params_index.as_deref()).map(Box::new)
                }
                _ => None,
            };
            drop(params_index);
            let parsed = match params {
                Some(raw) if scanned.is_none() => match crate::jsonrpc::to_value(raw) {
                    Ok(value) => Some(value),
                    Err(error) => {
                        tracing::debug!(%error, "params could not be parsed");
                        return Err(invalid_params(
                            "the params could not be parsed",
                            vec![violation("", "type", "the params are not valid JSON")],
                        ));
                    }
                },
                _ => None,
            };
            let mut params = Params {
                parsed,
                raw: params,
                scanned,
            };
            if params.requested_version().is_none()
                && !matches!(method, "initialize" | "ping")
                && self.session.state() == SessionState::Undecided
            {
                // A handshake written just before this request may still be running.
                self.session.settle(HANDSHAKE_WAIT).await;
            }
            // Bound first: a `match` on `route(..)?` would keep its 56-byte temporary across the
            // `.await`s of the arms.
            let route = self.route(method, params.parsed.as_ref(), params.requested_version())?;
            match route {
                Route::Initialize => self.initialize(params.parsed.as_ref()),
                Route::EarlyPing => {
                    let _params: Option<PingRequestParams> = decode(
                        method,
                        params.parsed.as_ref(),
                        validate::ping_request_params,
                        true,
                    )?;
                    respond(&EmptyResult { meta: None })
                }
                Route::Serve(Era::Modern) if method == "server/discover" => {
                    self.discover(params.parsed.as_ref())
                }
                Route::Serve(era) => self.dispatch(ctx, method, &mut params, era).await,
            }
        }
    }

    fn max_answer_bytes(&self, method: &str, params: Option<&RawValue>) -> Option<usize> {
        super::answer_bound::of_request(&self.state.catalog, method, params)
    }

    fn runs_in_place(&self, method: &str, params: Option<&RawValue>) -> bool {
        super::in_place::of_request(&self.state.catalog, method, params)
    }

    async fn on_stop_reading(&self) {
        self.closing.cancel();
    }

    async fn handle_response(&self, response: crate::jsonrpc::Response<'static>) {
        if !self.pending.deliver(response) {
            tracing::debug!("a response matched no request of this server: ignored");
        }
    }

    async fn handle_notification(
        &self,
        ctx: NotificationContext,
        method: &str,
        _params: Option<&RawValue>,
    ) {
        match method {
            "notifications/initialized" => {
                self.session.mark_initialized();
                // From now on the client hears of changes to the lists.
                let peer = self.notification_peer(ctx.peer());
                self.register();
                self.state.subscriptions.watch_lists(self.id, peer);
            }
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }
}

fn to_json_map<T: serde::Serialize>(arguments: T) -> serde_json::Map<String, Value> {
    match serde_json::to_value(arguments) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}
