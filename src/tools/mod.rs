//! Tool execution: request limits, timeouts and the response envelope.
