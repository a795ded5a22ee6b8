//! The search's tunable margins, declared once ([`search_params!`]): each
//! one's default, the range a tuner may move it in and the step it probes
//! with. The search reads them from [`SearchParams`], plain data that the
//! engine sets; an engine built with the `tune` feature also announces each
//! as a `spin` option of the same name (the option table makes them from
//! [`TUNABLES`]), so that a tuner (`xqmatch spsa`) can set them, and
//! `xqengine params` prints them in the tuner's format.

/// One tunable parameter, as a tuner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    /// The field's name, which is also the option's.
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// The size of the tuner's probes of it (SPSA's `c` at the end).
    pub step: i32,
    /// What it sets, in words, as its option in a tuning build says.
    pub effect: &'static str,
}

macro_rules! search_params {
    ($($(#[doc = $doc:literal])+ $name:ident: $default:literal, $min:literal..=$max:literal, step $step:literal;)+) => {
        /// The search's margins, in centipawns unless said otherwise. The
        /// search takes any values (a divisor below 1 counts as 1); the
        /// ranges are the tuner's.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct SearchParams {
            $($(#[doc = $doc])+ pub $name: i32,)+
        }

        impl Default for SearchParams {
            fn default() -> Self {
                SearchParams { $($name: $default,)+ }
            }
        }

        impl SearchParams {
            /// Sets the parameter `name` to `value`; `false` when there
            /// is no parameter of that name.
            pub fn set(&mut self, name: &str, value: i32) -> bool {
                match name {
                    $(stringify!($name) => self.$name = value,)+
                    _ => return false,
                }
                true
            }
        }

        /// Every parameter with its range and step, in declaration order.
        pub const TUNABLES: &[Tunable] = &[
            $(Tunable {
                name: stringify!($name),
                default: $default,
                min: $min,
                max: $max,
                step: $step,
                effect: concat!("search parameter (tuning builds):", $($doc),+),
            },)+
        ];
    };
}

search_params! {
    /// Razoring: the margin at depth 0.
    razor_base: 265, 0..=600, step 20;
    /// Razoring: the margin added a ply of depth.
    razor_depth: 352, 50..=600, step 20;
    /// Reverse futility: the margin a ply of depth.
    rfp_depth: 135, 30..=250, step 8;
    /// Reverse futility: taken off the margin when the position improves.
    rfp_improving: 94, 0..=200, step 8;
    /// Null move: the static evaluation may be this much below beta a ply of depth.
    nmp_depth: 18, 0..=80, step 3;
    /// Null move: ... less this much.
    nmp_base: 204, 0..=600, step 20;
    /// Null move: a ply more reduction for each this much the evaluation beats beta by.
    nmp_eval_div: 141, 50..=800, step 20;
    /// Futility of quiet moves: the margin at reduced depth 0.
    futility_base: 52, 0..=400, step 10;
    /// Futility of quiet moves: the margin added a ply of reduced depth.
    futility_depth: 71, 30..=300, step 10;
    /// Exchange pruning of quiet moves: the loss allowed, times the reduced depth squared.
    see_quiet: 28, 5..=100, step 3;
    /// Exchange pruning of captures: the loss allowed a ply of depth.
    see_capture: 93, 30..=400, step 12;
    /// Quiet moves whose history is below minus this a ply of depth are pruned near the leaves.
    history_prune: 5_119, 500..=12_000, step 300;
    /// Late-move reductions: a ply less for each this much history.
    lmr_history_div: 6_682, 2_000..=30_000, step 600;
    /// Singular extension: the margin below the table's score, a ply of depth.
    singular_depth: 7, 1..=16, step 1;
    /// Singular extension: the least depth at which the hash move is tested.
    singular_min_depth: 10, 4..=12, step 1;
    /// Quiescence: a capture whose victim and this cannot reach alpha is not tried.
    delta_margin: 257, 0..=500, step 15;
    /// Quiescence: no capture is tried if winning the best victim and this cannot reach alpha.
    best_victim_margin: 213, 0..=600, step 20;
    /// Late-move reductions: the reduction's constant, in hundredths of a ply.
    lmr_base: 51, 0..=150, step 8;
    /// Late-move reductions: ln(depth) times ln(move number) is divided by this, in hundredths.
    lmr_div: 159, 100..=400, step 15;
    /// Late-move pruning: quiet moves tried at depth 0, in hundredths of a move.
    lmp_base: 384, 100..=1_000, step 40;
    /// Late-move pruning: quiet moves added a ply of depth squared, in hundredths of a move.
    lmp_scale: 107, 30..=300, step 10;
    /// Null move: the reduction's constant, in hundredths of a ply.
    nmp_reduction: 283, 150..=500, step 20;
    /// Null move: a ply more reduction each this much depth, in hundredths of a ply.
    nmp_reduction_div: 258, 150..=600, step 25;
    /// Aspiration windows: the first half-width around the previous iteration's score.
    aspiration: 30, 5..=60, step 3;
    /// History: the cutoff bonus a ply of depth squared.
    bonus_quad: 21, 2..=48, step 2;
    /// History: the cutoff bonus a ply of depth.
    bonus_lin: 47, 0..=160, step 8;
    /// History: the cutoff bonus's cap.
    bonus_max: 1_805, 300..=4_000, step 120;
    /// Late-move reductions: added off the principal variation, in hundredths of a ply.
    lmr_not_pv: 100, 0..=300, step 20;
    /// Late-move reductions: added when the position does not improve, in hundredths of a ply.
    lmr_not_improving: 100, 0..=300, step 20;
    /// Late-move reductions: added at an expected fail-high node, in hundredths of a ply.
    lmr_cut_node: 100, 0..=300, step 20;
    /// Late-move reductions: taken off a move that gives check, in hundredths of a ply.
    lmr_check: 100, 0..=300, step 20;
    /// Late-move reductions: taken off a killer or counter move, in hundredths of a ply.
    lmr_refutation: 100, 0..=300, step 20;
    /// Razoring: the deepest node razored.
    razor_max_depth: 3, 1..=6, step 1;
    /// Reverse futility: the deepest node pruned.
    rfp_max_depth: 3, 1..=14, step 1;
    /// Late-move pruning: the deepest node whose late quiet moves are skipped.
    lmp_max_depth: 8, 4..=14, step 1;
    /// Futility of quiet moves: reduced depths below this are pruned.
    futility_max_depth: 8, 4..=14, step 1;
    /// Exchange pruning of quiet moves: reduced depths below this are pruned.
    see_quiet_max_depth: 8, 4..=14, step 1;
    /// Exchange pruning of captures: depths below this are pruned.
    see_capture_max_depth: 8, 4..=14, step 1;
    /// History pruning of quiet moves: reduced depths below this are pruned.
    history_prune_max_depth: 4, 1..=8, step 1;
    /// Internal iterative reduction: the least depth reduced without a hash move.
    iir_min_depth: 4, 2..=10, step 1;
    /// The net's evaluation, in hundredths of what it says: its centipawns are
    /// worth less than the hand-crafted evaluation's (a logistic fit to master
    /// games' results wants 425 of them a unit against 250), and the margins
    /// above were first set in the latter's.
    net_scale: 75, 40..=150, step 5;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_their_ranges_and_names_are_unique() {
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min <= t.default && t.default <= t.max, "{t:?}");
            assert!(t.step > 0 && t.step <= t.max - t.min, "{t:?}");
            assert!(TUNABLES[i + 1..].iter().all(|u| u.name != t.name));
        }
    }

    /// (That each name sets its parameter, through its option:
    /// `settings::each_parameter_option_sets_its_parameter`.)
    #[test]
    fn an_unknown_name_sets_nothing() {
        let mut params = SearchParams::default();
        assert!(!params.set("nosuchparameter", 1));
        assert_eq!(params, SearchParams::default());
    }
}
