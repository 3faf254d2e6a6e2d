//! The scripted model server: a Messages API on 127.0.0.1 (an ephemeral port, never another
//! address) that answers the agent from a [`Script`] and logs every request. `POST
//! /v1/messages` is answered as an event stream when the body asks for `stream`, else as JSON;
//! `POST /v1/messages/count_tokens` with the mock count of [`script::count_tokens`]; `POST
//! /v1/responses` (Codex) as a Responses event stream ([`responses`]); a proxy
//! `CONNECT` (stray traffic of an agent whose `HTTPS_PROXY` points here) is logged and refused
//! with 403; anything else gets 404. Method: docs/probe.md.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use serde_json::{Value, json};
use tiny_http::{Header, Method, Request, Response, Server};

use super::ProbeError;
use super::script::{self, Kind, Script};
use super::{gemini, responses, sse};

/// At most this many requests are answered; later ones get 503 (a runaway agent loop stops).
pub const MAX_REQUESTS: usize = 2_000;
/// A request body larger than this is refused with 413.
pub const MAX_BODY: u64 = 64 << 20;

/// One logged request. Headers are lower-cased and sorted; the API key headers are dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Logged {
    /// Arrival order, from 0.
    pub seq: usize,
    pub method: String,
    pub path: String,
    pub kind: Kind,
    pub headers: BTreeMap<String, String>,
    /// The JSON body, or the raw text as a string when it is not JSON, or null when empty.
    pub body: Value,
}

#[derive(Default)]
struct State {
    log: Vec<Logged>,
    mains: usize,
}

/// A running server; [`ScriptedServer::stop`] ends it and hands back the log.
pub struct ScriptedServer {
    server: Arc<Server>,
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    worker: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    /// Binds 127.0.0.1 on an ephemeral port and starts answering from `script`.
    pub fn start(script: Script) -> Result<ScriptedServer, ProbeError> {
        let server = Server::http("127.0.0.1:0")
            .map_err(|e| ProbeError::Server(format!("bind 127.0.0.1: {e}")))?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| ProbeError::Server("the server has no IP address".into()))?;
        let server = Arc::new(server);
        let state = Arc::new(Mutex::new(State::default()));
        let worker = {
            let (server, state) = (Arc::clone(&server), Arc::clone(&state));
            std::thread::spawn(move || {
                for request in server.incoming_requests() {
                    serve(request, &script, &state);
                }
            })
        };
        Ok(ScriptedServer {
            server,
            addr,
            state,
            worker: Some(worker),
        })
    }

    /// The bound address (always 127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A copy of the log so far.
    pub fn log(&self) -> Vec<Logged> {
        lock(&self.state).log.clone()
    }

    /// Stops the server and returns every logged request in arrival order.
    pub fn stop(mut self) -> Vec<Logged> {
        self.shutdown();
        std::mem::take(&mut lock(&self.state).log)
    }

    fn shutdown(&mut self) {
        self.server.unblock();
        if let Some(worker) = self.worker.take() {
            // A panicking worker has already lost its request; the log is still ours.
            let _ = worker.join();
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

fn serve(mut request: Request, script: &Script, state: &Mutex<State>) {
    let method = request.method().to_string();
    let path = request.url().to_string();
    let headers: BTreeMap<String, String> = request
        .headers()
        .iter()
        .map(|h| {
            (
                h.field.as_str().as_str().to_ascii_lowercase(),
                h.value.to_string(),
            )
        })
        .filter(|(name, _)| name != "x-api-key" && name != "authorization")
        .collect();
    let too_large = request.body_length().is_some_and(|n| n as u64 > MAX_BODY);
    let mut raw = Vec::new();
    if !too_large {
        let _ = request.as_reader().take(MAX_BODY).read_to_end(&mut raw);
    }
    let body = parse_body(&raw);
    let mut st = lock(state);
    if st.log.len() >= MAX_REQUESTS {
        drop(st);
        let _ = request.respond(Response::empty(503));
        return;
    }
    let seq = st.log.len();
    let kind = match (request.method(), path.split('?').next().unwrap_or("")) {
        (Method::Connect, _) => Kind::Connect,
        (Method::Post, "/v1/messages/count_tokens") => Kind::CountTokens,
        (Method::Post, "/v1/messages") => match script::classify_messages(&body) {
            Kind::Main(_) => {
                st.mains += 1;
                Kind::Main(st.mains - 1)
            }
            other => other,
        },
        (Method::Post, p) if p.starts_with(gemini::PATH_PREFIX) => match gemini::classify(&body) {
            Kind::Main(_) => {
                st.mains += 1;
                Kind::Main(st.mains - 1)
            }
            other => other,
        },
        (Method::Post, "/v1/responses") => match responses::classify(&body) {
            Kind::Main(_) => {
                st.mains += 1;
                Kind::Main(st.mains - 1)
            }
            other => other,
        },
        _ => Kind::Other,
    };
    st.log.push(Logged {
        seq,
        method,
        kind,
        headers,
        body: body.clone(),
        path: path.clone(),
    });
    drop(st);
    let response = if too_large {
        Response::from_string("request too large").with_status_code(413)
    } else {
        answer(kind, seq, &path, &body, script)
    };
    let _ = request.respond(response);
}

fn parse_body(raw: &[u8]) -> Value {
    if raw.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(raw)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(raw).into()))
}

type Answer = Response<std::io::Cursor<Vec<u8>>>;

fn answer(kind: Kind, seq: usize, path: &str, body: &Value, script: &Script) -> Answer {
    let codex = path.starts_with("/v1/responses");
    let turn = match kind {
        Kind::Main(n) => script.main_turn(n),
        // Codex takes the summariser's last message as the summary, whole.
        Kind::Compact if codex => script::Turn::text(&script.summary, script::Usage::SMALL),
        Kind::Compact => script.compact_turn(),
        Kind::Side => script::Turn::text(Script::SIDE_TEXT, script::Usage::SMALL),
        Kind::CountTokens => {
            return json_response(&json!({"input_tokens": script::count_tokens(body)}), 200);
        }
        Kind::Connect => {
            return Response::from_string("CONNECT refused by the lab's scripted model server")
                .with_status_code(403);
        }
        Kind::Other => return json_response(&json!({"type": "error"}), 404),
    };
    if path.starts_with(gemini::PATH_PREFIX) {
        let turn = match kind {
            Kind::Side => script::Turn::text(
                &gemini::side_text(body, Script::SIDE_TEXT),
                script::Usage::SMALL,
            ),
            _ => turn,
        };
        let model = gemini::model_of(path);
        return if path.contains(":streamGenerateContent") {
            Response::from_data(gemini::stream(&turn, model).into_bytes())
                .with_header(header("Content-Type", "text/event-stream"))
        } else {
            json_response(&gemini::response(&turn, model), 200)
        };
    }
    let id = format!("msg_lab_{seq:04}");
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("lab-model");
    if codex {
        let id = format!("resp_lab_{seq:04}");
        return Response::from_data(responses::stream(&turn, &id, model).into_bytes())
            .with_header(header("Content-Type", "text/event-stream"));
    }
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        Response::from_data(sse::stream(&turn, &id, model).into_bytes())
            .with_header(header("Content-Type", "text/event-stream"))
    } else {
        json_response(&sse::message(&turn, &id, model), 200)
    }
}

fn json_response(value: &Value, status: u16) -> Answer {
    Response::from_data(value.to_string().into_bytes())
        .with_status_code(status)
        .with_header(header("Content-Type", "application/json"))
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header is valid")
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::TcpStream;

    use super::*;
    use crate::probe::script::{Block, Turn, Usage};

    fn script() -> Script {
        Script {
            turns: vec![Turn {
                blocks: vec![Block::ToolUse {
                    id: "toolu_a".into(),
                    name: "Bash".into(),
                    input: json!({"command": "cat a"}),
                }],
                usage: Usage {
                    input_tokens: 1000,
                    cache_creation_input_tokens: 0,
                    cache_read_input_tokens: 165_999,
                    output_tokens: 10,
                },
            }],
            summary: "the summary".into(),
        }
    }

    /// One HTTP/1.1 exchange over loopback; returns the status line and the body.
    fn exchange(addr: SocketAddr, head: &str, body: &str) -> (String, String) {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(
            s,
            "{head}\r\nHost: x\r\nx-api-key: sk-secret\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        let status = out.lines().next().unwrap().to_string();
        let body = out.split_once("\r\n\r\n").unwrap().1.to_string();
        (status, body)
    }

    #[test]
    fn binds_loopback_only() {
        let server = ScriptedServer::start(script()).unwrap();
        assert!(server.addr().ip().is_loopback());
        assert!(server.url().starts_with("http://127.0.0.1:"));
    }

    #[test]
    fn plays_the_script_then_stops_the_agent() {
        let server = ScriptedServer::start(script()).unwrap();
        let main = r#"{"model":"m1","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]}"#;
        let (status, sse) = exchange(server.addr(), "POST /v1/messages HTTP/1.1", main);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(
            sse.contains(
                r#""content_block":{"type":"tool_use","id":"toolu_a","name":"Bash","input":{}}"#
            ),
            "{sse}"
        );
        assert!(sse.contains(r#""cache_read_input_tokens":165999"#));
        assert!(sse.contains(r#""model":"m1""#));
        let plain = main.replace(r#""stream":true,"#, "");
        let (_, json) = exchange(server.addr(), "POST /v1/messages HTTP/1.1", &plain);
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["content"][0]["text"], "done");
        assert_eq!(v["stop_reason"], "end_turn");
        assert_eq!(v["id"], "msg_lab_0001");
        let log = server.stop();
        assert_eq!(log.len(), 2);
        assert_eq!((log[0].kind, log[1].kind), (Kind::Main(0), Kind::Main(1)));
        assert!(!log[0].headers.contains_key("x-api-key"));
        assert_eq!(log[0].body["messages"][0]["content"], "go");
    }

    #[test]
    fn answers_summary_side_count_tokens_and_refuses_connect() {
        let server = ScriptedServer::start(script()).unwrap();
        let compact = r#"{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"Your task is to create a detailed summary of the conversation so far"}]}"#;
        let (_, json) = exchange(server.addr(), "POST /v1/messages HTTP/1.1", compact);
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            v["content"][0]["text"],
            "<analysis>\nscripted\n</analysis>\n\n<summary>\nthe summary\n</summary>"
        );
        let (_, json) = exchange(
            server.addr(),
            "POST /v1/messages HTTP/1.1",
            r#"{"messages":[{"role":"user","content":"name this"}]}"#,
        );
        assert_eq!(
            serde_json::from_str::<Value>(&json).unwrap()["content"][0]["text"],
            "ok"
        );
        let (_, json) = exchange(
            server.addr(),
            "POST /v1/messages/count_tokens HTTP/1.1",
            r#"{"messages":[{"role":"user","content":"abcdefgh"}]}"#,
        );
        // "user" + "abcdefgh" = 12 chars → 3 tokens.
        assert_eq!(json, r#"{"input_tokens":3}"#);
        let (status, _) = exchange(server.addr(), "CONNECT api.anthropic.com:443 HTTP/1.1", "");
        assert!(status.starts_with("HTTP/1.1 403"), "{status}");
        let (status, _) = exchange(server.addr(), "GET /elsewhere HTTP/1.1", "");
        assert!(status.starts_with("HTTP/1.1 404"), "{status}");
        let log = server.stop();
        let kinds: Vec<&str> = log.iter().map(|l| l.kind.name()).collect();
        assert_eq!(
            kinds,
            ["compact", "side", "count_tokens", "connect", "other"]
        );
        assert_eq!(log[3].path, "api.anthropic.com:443");
    }
}
