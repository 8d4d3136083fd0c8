//! `memdir ui`: a workbench in the browser (issue 48). It serves one page on loopback from the
//! binary (no CDN, no network) where a person sees every memory on this machine, what each
//! agent was given and why, and steers: reviews proposals, pauses, edits, forgets, restores.
//!
//! The server only moves bytes. Every answer comes from the core's operations, as for every
//! other host, and every change goes through the writers' own checks (secrets, limits, the
//! lock, the journal), so it is on disk and visible to every agent at once. [`guard`] decides
//! who may ask; the page renders and escapes.

mod api;
mod guard;
mod markdown;

#[cfg(feature = "bench")]
pub use api::Workbench;

use crate::context::{Context, Failure, Outcome, absolute};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir ui`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The port on 127.0.0.1 (default: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Print the address without opening a browser.
    #[arg(long)]
    pub no_open: bool,
    /// Serve no change at all: look, do not touch.
    #[arg(long)]
    pub read_only: bool,
    /// The project whose memory the page opens on (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

/// The page, served from the binary.
const PAGE: [(&str, &str, &str); 3] = [
    ("/", "text/html; charset=utf-8", include_str!("page/index.html")),
    ("/app.js", "text/javascript; charset=utf-8", include_str!("page/app.js")),
    ("/app.css", "text/css; charset=utf-8", include_str!("page/app.css")),
];

/// The page's weight in bytes: everything a browser loads.
#[cfg(feature = "bench")]
pub fn page_weight() -> usize {
    PAGE.iter().map(|(_, _, text)| text.len()).sum()
}

/// The largest request body read: an edited memory.
const MAX_BODY: u64 = 1 << 20;

pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let server = tiny_http::Server::http(("127.0.0.1", args.port))
        .map_err(|e| Failure::input(format!("127.0.0.1:{}: {e}", args.port)))?;
    let port = server.server_addr().to_ip().map(|a| a.port()).unwrap_or(args.port);
    let guard = guard::Guard { token: guard::token()?, port, read_only: args.read_only };
    let url = format!("http://127.0.0.1:{port}/?token={}", guard.token);
    writeln!(out, "{url}")?;
    writeln!(out, "memdir's workbench{}; Ctrl-C stops it.", if args.read_only { ", read-only" } else { "" })?;
    out.flush()?;
    if !args.no_open {
        open_browser(&url);
    }
    // What this page writes, the timeline says the person wrote here (issue 48).
    ctx.set_by("person:workbench");
    let bench = api::Workbench::new(ctx, cwd, args.read_only);
    for request in server.incoming_requests() {
        let _ = answer(&guard, &bench, request);
    }
    Ok(())
}

/// One request: guarded, routed, answered with the security headers.
fn answer(
    guard: &guard::Guard,
    bench: &api::Workbench,
    mut request: tiny_http::Request,
) -> std::io::Result<()> {
    let header = |name: &'static str| {
        request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str().to_string())
    };
    let (host, origin, cookie) = (header("Host"), header("Origin"), header("Cookie"));
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let params = parse_query(query);
    let presented = guard::Presented {
        method: &method,
        host: host.as_deref(),
        origin: origin.as_deref(),
        cookie: cookie.as_deref(),
        query_token: params.iter().find(|(k, _)| k == "token").map(|(_, v)| v.as_str()),
    };
    // Read the body whatever the answer: a refused request's unread body would be taken for
    // the next request on the same connection.
    let mut posted = String::new();
    let _ =
        std::io::Read::read_to_string(&mut std::io::Read::take(request.as_reader(), MAX_BODY), &mut posted);
    let (status, content_type, body, set_cookie) = match guard.check(&presented) {
        Err(refusal) => {
            (refusal.status(), "text/plain; charset=utf-8", refusal.message().as_bytes().to_vec(), false)
        }
        // The token leaves the address bar: the cookie carries it from here.
        Ok(true) => (303, "text/plain; charset=utf-8", b"see /".to_vec(), true),
        Ok(false) => match PAGE.iter().find(|(p, _, _)| *p == path) {
            Some((_, kind, text)) if method == "GET" => (200, *kind, text.as_bytes().to_vec(), false),
            _ if path.starts_with("/api/") => {
                let (status, json) = bench.call(&method, &path["/api/".len()..], &params, &posted);
                (status, "application/json", json.into_bytes(), false)
            }
            _ => (404, "text/plain; charset=utf-8", b"not found".to_vec(), false),
        },
    };
    let mut response = tiny_http::Response::from_data(body).with_status_code(status);
    let mut add = |name: &str, value: &str| {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    };
    add("Content-Type", content_type);
    for (name, value) in guard::HEADERS {
        add(name, value);
    }
    if set_cookie {
        add("Set-Cookie", &guard.cookie());
        add("Location", "/");
    }
    request.respond(response)
}

/// `a=b&c=d`, percent-decoded.
fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| Some(hex(bytes[i + 1])? * 16 + hex(bytes[i + 2])?))
            .flatten();
        match (bytes[i], escaped) {
            (_, Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b'+', _) => out.push(b' '),
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Opens `url` in the person's browser; a machine without one just has the printed address.
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

#[cfg(test)]
mod tests {
    #[test]
    fn queries_are_percent_decoded() {
        let q = super::parse_query("q=release+tags%20now&dir=%2Fhome%2Fyou&bad=%zz&end=%4");
        assert_eq!(q[0], ("q".into(), "release tags now".into()));
        assert_eq!(q[1].1, "/home/you");
        assert_eq!(q[2].1, "%zz");
        assert_eq!(q[3].1, "%4");
    }
}
