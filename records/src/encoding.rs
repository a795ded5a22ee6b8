//! Text encodings of Chinese game records: UTF-8, GBK/GB18030 (mainland
//! software) and Big5 (Taiwan and Hong Kong software), told apart by
//! which decoding yields the characters that records are made of.

use std::fmt;
use std::str::FromStr;

/// An encoding of a record file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8 (with or without a byte-order mark).
    Utf8,
    /// GB18030, which includes GBK and GB2312.
    Gb18030,
    /// Big5 (code page 950).
    Big5,
}

impl TextEncoding {
    fn codec(self) -> &'static encoding_rs::Encoding {
        match self {
            TextEncoding::Utf8 => encoding_rs::UTF_8,
            TextEncoding::Gb18030 => encoding_rs::GB18030,
            TextEncoding::Big5 => encoding_rs::BIG5,
        }
    }
}

impl fmt::Display for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Gb18030 => "gb18030",
            TextEncoding::Big5 => "big5",
        })
    }
}

/// A name that is not one of the encodings read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown encoding '{0}' (known: utf-8, gbk, gb18030, big5)")]
pub struct UnknownEncoding(pub String);

impl FromStr for TextEncoding {
    type Err = UnknownEncoding;

    /// The encoding's name or a common alias, in any case (`utf8`, `gbk`,
    /// `gb2312`, `cp936`, `cp950`, ...).
    fn from_str(s: &str) -> Result<TextEncoding, UnknownEncoding> {
        match s.to_ascii_lowercase().as_str() {
            "utf-8" | "utf8" => Ok(TextEncoding::Utf8),
            "gbk" | "gb18030" | "gb2312" | "cp936" => Ok(TextEncoding::Gb18030),
            "big5" | "cp950" => Ok(TextEncoding::Big5),
            _ => Err(UnknownEncoding(s.to_string())),
        }
    }
}

/// Characters of move text and headers, in both scripts: a decoding that
/// yields many of them is the right one.
const RECORD_CHARS: &str = "進进退平車车馬马炮砲兵卒將将帥帅仕士相象前後后紅红黑勝胜負负和";

/// Text decoded from a file, and how.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// The encoding used.
    pub encoding: TextEncoding,
    /// Bytes that were not valid in that encoding (replaced by U+FFFD).
    pub malformed: usize,
}

/// Decodes `bytes` in `forced` encoding, or in the one detected.
pub fn decode(bytes: &[u8], forced: Option<TextEncoding>) -> Decoded {
    let encoding = forced.unwrap_or_else(|| detect(bytes));
    let (text, _, _) = encoding.codec().decode(bytes);
    let malformed = text.chars().filter(|&c| c == '\u{fffd}').count()
        - count_replacements_in_source(bytes, encoding);
    Decoded {
        text: text.into_owned(),
        encoding,
        malformed,
    }
}

/// U+FFFD written literally in UTF-8 source text is not a decoding error.
fn count_replacements_in_source(bytes: &[u8], encoding: TextEncoding) -> usize {
    if encoding != TextEncoding::Utf8 {
        return 0;
    }
    bytes.windows(3).filter(|w| w == b"\xef\xbf\xbd").count()
}

/// Guesses the encoding of `bytes`: UTF-8 when valid, otherwise GB18030 or
/// Big5, whichever decodes to more record characters and fewer errors.
pub fn detect(bytes: &[u8]) -> TextEncoding {
    if bytes.starts_with(b"\xef\xbb\xbf") || std::str::from_utf8(bytes).is_ok() {
        return TextEncoding::Utf8;
    }
    // A sample suffices, cut where the Big5 and GBK lead bytes agree: at
    // an ASCII byte.
    let mut end = bytes.len().min(64 * 1024);
    while end < bytes.len() && bytes[end] >= 0x80 {
        end += 1;
    }
    let sample = &bytes[..end];
    let score = |e: TextEncoding| {
        let (text, _) = e.codec().decode_without_bom_handling(sample);
        let mut score = 0i64;
        for c in text.chars() {
            if c == '\u{fffd}' {
                score -= 4;
            } else if RECORD_CHARS.contains(c) {
                score += 1;
            }
        }
        score
    };
    if score(TextEncoding::Big5) > score(TextEncoding::Gb18030) {
        TextEncoding::Big5
    } else {
        TextEncoding::Gb18030
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOVES: &str = "[Red \"柳大華\"]\n1. 炮二平五 馬８進７\n2. 馬二進三 車９平８\n";

    #[test]
    fn each_encoding_is_detected_and_decoded() {
        let traditional = MOVES;
        let simplified = "[Red \"柳大华\"]\n1. 炮二平五 马８进７\n2. 马二进三 车９平８\n";
        let cases = [
            (TextEncoding::Utf8, traditional),
            (TextEncoding::Big5, traditional),
            (TextEncoding::Gb18030, simplified),
            (TextEncoding::Gb18030, traditional),
        ];
        for (encoding, text) in cases {
            let (bytes, _, unmappable) = encoding.codec().encode(text);
            assert!(!unmappable, "{encoding}");
            let decoded = decode(&bytes, None);
            assert_eq!(decoded.encoding, encoding, "{text}");
            assert_eq!(decoded.text, text);
            assert_eq!(decoded.malformed, 0);
        }
    }

    #[test]
    fn a_forced_encoding_wins_and_errors_are_counted() {
        let (big5, _, _) = TextEncoding::Big5.codec().encode(MOVES);
        let forced = decode(&big5, Some(TextEncoding::Utf8));
        assert_eq!(forced.encoding, TextEncoding::Utf8);
        assert!(forced.malformed > 0);
        assert_eq!("GBK".parse(), Ok(TextEncoding::Gb18030));
        assert_eq!("cp950".parse(), Ok(TextEncoding::Big5));
        assert!("latin1".parse::<TextEncoding>().is_err());
    }
}
