//! The routes, on axum: the analysis board at `/` (`/?fen=FEN` or
//! `/#fen=FEN` opens it at a position), `/chessdb.php`
//! (chessdb's API, GET and POST), our JSON API under `/api/`, with a web
//! root ([`WebRoot`], `--web-root`) the files of its folder at every other
//! path, and a refusal with a reason for anything else.

use std::io;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, RawQuery, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower::ServiceExt;
use tower_http::services::ServeDir;

use crate::chessdb::answer_from;
use crate::library::Library;
use crate::reply::{Params, Reply};
use crate::workers::Client;

/// Longest query string accepted (a FEN and some 1,000 moves); longer ones
/// get 414 before any parsing.
pub const MAX_QUERY_LEN: usize = 8 * 1024;

/// The server's routes over `library`.
pub fn router(library: Arc<Library>) -> Router {
    router_with_files(library, None)
}

/// The server's routes over `library`, and at every other path the files
/// of `web_root` when there is one.
pub fn router_with_files(library: Arc<Library>, web_root: Option<WebRoot>) -> Router {
    let routes = Router::new()
        .route("/chessdb.php", get(chessdb_get).post(chessdb_post))
        .route("/", get(board_page))
        .nest("/api", api_router());
    let routes = match web_root {
        Some(root) => {
            let root = Arc::new(root);
            routes.fallback(move |request: Request| async move { root.serve(request).await })
        }
        None => routes.fallback(|| async { no_such_page() }),
    };
    routes.with_state(library)
}

fn no_such_page() -> Response {
    (StatusCode::NOT_FOUND, "no such page\n").into_response()
}

/// A folder whose files are served at the paths the routes leave, as
/// tower-http's `ServeDir` serves them (`/a/` is `a/index.html`, `/a`
/// redirects to `/a/`, GET and HEAD only). Nothing outside the folder is
/// served: a path with `..` is refused (by `ServeDir`), and so is a
/// symbolic link that leads out of the folder; a missing file is 404.
#[derive(Clone, Debug)]
pub struct WebRoot {
    /// Canonical: every symbolic link resolved.
    root: PathBuf,
}

impl WebRoot {
    /// The folder `dir`, which must exist.
    ///
    /// # Errors
    ///
    /// `dir` cannot be resolved, or is not a folder.
    pub fn open(dir: &Path) -> io::Result<WebRoot> {
        let root = dir.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder"));
        }
        Ok(WebRoot { root })
    }

    /// The folder, every symbolic link in its path resolved.
    pub fn path(&self) -> &Path {
        &self.root
    }

    async fn serve(&self, request: Request) -> Response {
        if !self.keeps_inside(request.uri().path()) {
            return no_such_page();
        }
        let Ok(response) = ServeDir::new(&self.root).oneshot(request).await;
        if response.status() == StatusCode::NOT_FOUND {
            return no_such_page();
        }
        response.map(Body::new)
    }

    /// Whether the file that `ServeDir` would read for the request path
    /// `uri_path` lies inside the folder once every symbolic link is
    /// resolved (a file that is not there does: it is 404). The path is
    /// decoded as `ServeDir` decodes it; one it would refuse (`..`, bad
    /// UTF-8) is refused here already.
    fn keeps_inside(&self, uri_path: &str) -> bool {
        let encoded = uri_path.trim_start_matches('/');
        let Ok(decoded) = percent_encoding::percent_decode_str(encoded).decode_utf8() else {
            return false;
        };
        let mut path = self.root.clone();
        for component in Path::new(&*decoded).components() {
            match component {
                Component::Normal(name) => path.push(name),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => return false,
            }
        }
        // A folder is served as its index.html.
        let index = path.is_dir().then(|| path.join("index.html"));
        [Some(path), index]
            .into_iter()
            .flatten()
            .all(|file| match file.canonicalize() {
                Ok(real) => real.starts_with(&self.root),
                Err(_) => true,
            })
    }
}

/// Serves `library` (and the files of `web_root`) on `listener` until
/// `shutdown` completes, each connection knowing its client's address
/// (for the rate limit and the workers' tokens).
///
/// # Errors
///
/// Serving fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    library: Arc<Library>,
    web_root: Option<WebRoot>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app =
        router_with_files(library, web_root).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

/// The client of a request: its address when the server was started by
/// [`serve`], else this machine.
struct Peer(Client);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Peer, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        Ok(Peer(
            peer.map_or_else(Client::local, |ConnectInfo(addr)| Client::at(addr.ip())),
        ))
    }
}

/// Our JSON API (`/api/...`), whose every refusal is JSON as well.
fn api_router() -> Router<Arc<Library>> {
    use crate::api;
    Router::new()
        .route("/position", get(api::position_info))
        .route("/pgn", axum::routing::post(api::pgn))
        .route("/book", get(api::book))
        .route("/tables", get(api::tables))
        .route("/analyse", get(api::analyse))
        .route("/levels", get(api::levels))
        .route("/play", get(api::play))
        .route("/review", axum::routing::post(api::start_review))
        .route("/review/{id}", get(api::review))
        // The games under review, for the server's life.
        .layer(axum::Extension(Arc::new(crate::review::Reviews::default())))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
}

/// The analysis board, built into the binary.
const BOARD_PAGE: &str = include_str!("../web/index.html");

async fn board_page() -> axum::response::Html<&'static str> {
    axum::response::Html(BOARD_PAGE)
}

async fn chessdb_get(
    State(library): State<Arc<Library>>,
    Peer(client): Peer,
    RawQuery(query): RawQuery,
) -> Response {
    chessdb(&library, query.as_deref().unwrap_or("").as_bytes(), &client).await
}

/// chessdb takes form-encoded POST bodies as well (its own page sends them).
async fn chessdb_post(
    State(library): State<Arc<Library>>,
    Peer(client): Peer,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let mut all = query.unwrap_or_default().into_bytes();
    if !body.is_empty() {
        if !all.is_empty() {
            all.push(b'&');
        }
        all.extend_from_slice(&body);
    }
    chessdb(&library, &all, &client).await
}

async fn chessdb(library: &Library, query: &[u8], client: &Client) -> Response {
    if query.len() > MAX_QUERY_LEN {
        return reply(Reply {
            status: 414,
            body: format!("query of {} bytes (at most {MAX_QUERY_LEN})\0", query.len()),
            json: false,
        });
    }
    let params: Vec<(String, String)> = form_pairs(query);
    reply(answer_from(library, Params(&params), client).await)
}

/// `a=b&c=d`, `+` and `%XX` decoded (invalid UTF-8 replaced).
fn form_pairs(query: &[u8]) -> Vec<(String, String)> {
    query
        .split(|&b| b == b'&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let mut it = pair.splitn(2, |&b| b == b'=');
            let key = decode(it.next().unwrap_or_default());
            let value = decode(it.next().unwrap_or_default());
            (key, value)
        })
        .collect()
}

fn decode(bytes: &[u8]) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn reply(r: Reply) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let kind = if r.json {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let mut response = (status, r.body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_decoding() {
        let p = form_pairs(b"action=queryall&board=rnb%20w+moves+h2e2&x=%zz%2&json");
        assert_eq!(p[0], ("action".into(), "queryall".into()));
        assert_eq!(p[1], ("board".into(), "rnb w moves h2e2".into()));
        assert_eq!(p[2], ("x".into(), "%zz%2".into()));
        assert_eq!(p[3], ("json".into(), String::new()));
    }
}
