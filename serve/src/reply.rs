//! chessdb's replies as they are written (text ended by a NUL, or JSON
//! with a `status` first), and the parameters of a query.

use serde_json::Value as Json;

/// A reply: HTTP status, body, and whether the body is JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub json: bool,
}

/// How a reply is written: text (NUL-terminated) or JSON.
#[derive(Clone, Copy)]
pub(crate) struct Style {
    pub(crate) json: bool,
}

impl Style {
    /// A reply that is only a status word (`unknown`, `invalid board`...).
    pub(crate) fn word(self, status: u16, word: &str) -> Reply {
        if self.json {
            self.object(status, &[("status", json_string(word))])
        } else {
            self.text(status, word)
        }
    }

    /// chessdb's `invalid parameters` when a query has no `board` (or no
    /// action we answer): written outside its board's reply, the text has
    /// no NUL.
    pub(crate) fn invalid_parameters(self) -> Reply {
        let mut reply = self.word(200, "invalid parameters");
        if !self.json {
            reply.body.pop();
        }
        reply
    }

    pub(crate) fn text(self, status: u16, text: &str) -> Reply {
        Reply {
            status,
            body: format!("{text}\0"),
            json: false,
        }
    }

    /// A JSON object with its fields in the order given (each value JSON
    /// already): chessdb writes `status` first, then its fields in a fixed
    /// order.
    pub(crate) fn object(self, status: u16, fields: &[(&str, String)]) -> Reply {
        Reply {
            status,
            body: ordered_object(fields),
            json: true,
        }
    }

    /// `{"status":"ok",...}` with `fields` after the status.
    pub(crate) fn ok(self, fields: &[(&str, String)]) -> Reply {
        let mut all = vec![("status", json_string("ok"))];
        all.extend(fields.iter().cloned());
        self.object(200, &all)
    }
}

/// `{"key":value,...}`, the keys in the order given, each value JSON text.
pub(crate) fn ordered_object(fields: &[(&str, String)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{v}", json_string(k)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// A string as JSON text.
pub(crate) fn json_string(s: &str) -> String {
    Json::from(s).to_string()
}

/// A JSON array of JSON texts.
pub(crate) fn json_array(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

/// The parameters of a query, as name-value pairs already URL-decoded.
pub struct Params<'a>(pub &'a [(String, String)]);

impl Params<'_> {
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// chessdb's booleans (PHP's `FILTER_VALIDATE_BOOLEAN`): 1, true, on,
    /// yes, in any case, spaces around ignored.
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.flag_or(name, false)
    }

    /// A boolean that is `default` when the query does not give it.
    pub(crate) fn flag_or(&self, name: &str, default: bool) -> bool {
        self.get(name).map_or(default, |v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "on" | "yes"
            )
        })
    }
}
