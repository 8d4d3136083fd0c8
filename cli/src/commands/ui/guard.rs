//! Who may talk to the workbench (issue 48). It is a server on the person's machine with write
//! access to their memory, so every request must come from the page this process served:
//!
//! - the token, once in the URL `memdir ui` prints, then in an `HttpOnly`, `SameSite=Strict`
//!   cookie;
//! - a `Host` that is this loopback address and port (a DNS-rebinding page names its own host);
//! - for anything that changes memory, an `Origin` that is the page's own, and no writes at all
//!   under `--read-only`.
//!
//! No CORS header is ever sent, and every answer carries a strict Content-Security-Policy.

/// The cookie that carries the token after the first visit.
pub const COOKIE: &str = "memdir_ui";

/// Every response's security headers.
pub const HEADERS: [(&str, &str); 6] = [
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
];

/// What one request presents.
#[derive(Debug, Default)]
pub struct Presented<'a> {
    pub method: &'a str,
    pub host: Option<&'a str>,
    pub origin: Option<&'a str>,
    pub cookie: Option<&'a str>,
    /// `token=` in the query string.
    pub query_token: Option<&'a str>,
}

/// Why a request is refused; each is answered 403 with this text, or 401 for no token.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    NoToken,
    ForeignHost,
    ForeignOrigin,
    ReadOnly,
}

impl Refusal {
    pub fn status(&self) -> u16 {
        match self {
            Refusal::NoToken => 401,
            _ => 403,
        }
    }

    pub fn message(&self) -> &'static str {
        match self {
            Refusal::NoToken => "open the address memdir ui printed: it carries the token",
            Refusal::ForeignHost => "this server answers only on its loopback address",
            Refusal::ForeignOrigin => "a change must come from the workbench's own page",
            Refusal::ReadOnly => "memdir ui runs --read-only: nothing can be changed here",
        }
    }
}

/// The guard for one server.
pub struct Guard {
    pub token: String,
    pub port: u16,
    pub read_only: bool,
}

impl Guard {
    /// Whether `request` may go on; `Ok(true)` when it presented the token in the URL and the
    /// answer should set the cookie.
    pub fn check(&self, request: &Presented<'_>) -> Result<bool, Refusal> {
        let hosts = [format!("127.0.0.1:{}", self.port), format!("localhost:{}", self.port)];
        if !request.host.is_some_and(|h| hosts.iter().any(|ok| ok == h)) {
            return Err(Refusal::ForeignHost);
        }
        let from_url = request.query_token.is_some_and(|t| same(t, &self.token));
        let from_cookie = request.cookie.and_then(cookie_token).is_some_and(|t| same(t, &self.token));
        if !from_url && !from_cookie {
            return Err(Refusal::NoToken);
        }
        if !matches!(request.method, "GET" | "HEAD") {
            let origins = hosts.map(|h| format!("http://{h}"));
            if !request.origin.is_some_and(|o| origins.iter().any(|ok| ok == o)) {
                return Err(Refusal::ForeignOrigin);
            }
            if self.read_only {
                return Err(Refusal::ReadOnly);
            }
        }
        Ok(from_url)
    }

    /// The `Set-Cookie` value that carries the token.
    pub fn cookie(&self) -> String {
        format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", self.token)
    }
}

/// The workbench's cookie in a `Cookie` header.
fn cookie_token(header: &str) -> Option<&str> {
    header.split(';').find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
}

/// Compares in time that does not depend on where the strings differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new token: 32 bytes from the operating system's random source, as hex.
pub fn token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(read_only: bool) -> Guard {
        Guard { token: "t0k".into(), port: 4000, read_only }
    }

    fn get<'a>() -> Presented<'a> {
        Presented {
            method: "GET",
            host: Some("127.0.0.1:4000"),
            cookie: Some("memdir_ui=t0k"),
            ..Presented::default()
        }
    }

    #[test]
    fn every_hostile_request_is_refused() {
        let g = guard(false);
        assert_eq!(g.check(&get()), Ok(false));
        assert_eq!(g.check(&Presented { cookie: None, ..get() }), Err(Refusal::NoToken));
        assert_eq!(g.check(&Presented { cookie: Some("memdir_ui=t0K"), ..get() }), Err(Refusal::NoToken));
        assert_eq!(g.check(&Presented { cookie: None, query_token: Some("t0k"), ..get() }), Ok(true));
        assert_eq!(
            g.check(&Presented { host: Some("evil.example:4000"), ..get() }),
            Err(Refusal::ForeignHost)
        );
        assert_eq!(g.check(&Presented { host: None, ..get() }), Err(Refusal::ForeignHost));
        let post = Presented { method: "POST", origin: Some("http://127.0.0.1:4000"), ..get() };
        assert_eq!(g.check(&post), Ok(false));
        assert_eq!(
            g.check(&Presented { origin: Some("http://evil.example"), ..post }),
            Err(Refusal::ForeignOrigin)
        );
        let post = Presented { method: "POST", origin: None, ..get() };
        assert_eq!(g.check(&post), Err(Refusal::ForeignOrigin));
        let post = Presented { method: "POST", origin: Some("http://localhost:4000"), ..get() };
        assert_eq!(guard(true).check(&post), Err(Refusal::ReadOnly));
    }
}
