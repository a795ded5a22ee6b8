//! The learned evaluation through the protocol: `evaluation` switches it,
//! `evalfile` loads a net or refuses a bad one and keeps the net in use.

mod common;

use common::{search_infos, Engine, SECS};
use xqmatch::{EngineScore, Protocol};

/// The score of the last `info depth` line before `bestmove`.
fn search_score(e: &mut Engine, go: &str) -> (i64, String) {
    // A new game each time: no table or history carried over.
    e.send("setoption newgame");
    e.send("position startpos moves h2e2 h9g7");
    e.send(go);
    let lines = e.collect_until("bestmove", SECS(30));
    let score = search_infos(Protocol::Ucci, &lines)
        .iter()
        .rev()
        .find_map(|info| match info.score {
            Some(EngineScore::Cp(cp)) => Some(i64::from(cp)),
            _ => None,
        })
        .expect("a scored info line");
    (score, lines.last().unwrap().clone())
}

#[test]
fn evaluation_and_evalfile_choose_the_evaluation_and_refuse_bad_nets() {
    let mut e = Engine::ucci();
    e.send("setoption usebook false");
    e.send("setoption evaluation hce");
    let (hce, _) = search_score(&mut e, "go depth 1");
    e.send("setoption evaluation nnue");
    let (nnue, best) = search_score(&mut e, "go depth 6");
    assert!(best.starts_with("bestmove "), "{best}");
    let (nnue1, _) = search_score(&mut e, "go depth 1");
    assert_ne!(hce, nnue1, "the net is in use");

    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.xqnn");
    let bytes = xqnnue::Network::embedded().to_bytes();
    std::fs::write(&good, &bytes).unwrap();
    let truncated = dir.path().join("truncated.xqnn");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let foreign = dir.path().join("foreign.xqnn");
    std::fs::write(&foreign, b"not a net at all").unwrap();
    let checksum = format!("{:08x}", xqnnue::Network::embedded().checksum());
    for (path, reason) in [
        (truncated, "truncated"),
        (foreign, "not a net file"),
        (dir.path().join("missing.xqnn"), "No such file"),
    ] {
        e.send(&format!("setoption evalfile {}", path.display()));
        e.send("isready");
        let lines = e.collect_until("readyok", SECS(10));
        let said = lines.iter().find(|l| l.contains(path.to_str().unwrap()));
        let said = said.unwrap_or_else(|| panic!("{path:?} not named: {lines:?}"));
        assert!(said.starts_with("info string evalfile: "), "{said}");
        assert!(said.contains(reason) && said.contains(&checksum), "{said}");
        // The net in use stays: the same search, the same score.
        assert_eq!(search_score(&mut e, "go depth 6").0, nnue);
    }
    // The same net from a file, and then a net of another width: the
    // built-in one with 256 silent neurons added to each half evaluates
    // every position alike, so the search must come out the same through
    // the wider kernels.
    let wide = dir.path().join("wide.xqnn");
    std::fs::write(&wide, padded(xqnnue::Network::embedded(), 512).to_bytes()).unwrap();
    for (path, says) in [(good, checksum.as_str()), (wide, "1260->512x2")] {
        e.send(&format!("setoption evalfile {}", path.display()));
        e.send("isready");
        let lines = e.collect_until("readyok", SECS(10));
        assert!(
            lines
                .iter()
                .any(|l| l.contains("loaded") && l.contains(says)),
            "{lines:?}"
        );
        assert_eq!(search_score(&mut e, "go depth 6").0, nnue);
    }
}

/// `net` widened to `hidden` neurons a perspective, the new ones with zero
/// weights and biases (their activations are zero).
fn padded(net: &xqnnue::Network, hidden: usize) -> xqnnue::Network {
    let old = net.hidden();
    let widen = |values: &[i16], width: usize| -> Vec<i16> {
        values
            .chunks(width)
            .flat_map(|row| {
                row.iter()
                    .copied()
                    .chain(std::iter::repeat_n(0, hidden - width))
            })
            .collect()
    };
    let arch = xqnnue::Architecture::new(net.architecture().features(), hidden).unwrap();
    xqnnue::Network::new(
        arch,
        widen(net.input_weights(), old),
        widen(net.input_biases(), old),
        widen(net.output_weights(), old),
        net.output_biases().to_vec(),
    )
    .unwrap()
}
