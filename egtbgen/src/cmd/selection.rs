//! Which tables a command works on, as `gen` and `plan` take them: named
//! ones, every one up to a number of pieces, or a class by attackers and
//! defenders.

use xqcli::Failure;
use xqegtb::{Defenders, Material, MaterialClass, MAX_PIECES};

/// Which tables: named ones, every one up to a number of pieces, or a
/// class by attackers and defenders (and every table their captures lead
/// into).
#[derive(clap::Args)]
pub struct Selection {
    /// Materials, e.g. KRKAABB.
    materials: Vec<String>,
    /// Every table with at most this many pieces, kings included; with
    /// --max-attackers, a bound on that class.
    #[arg(long)]
    max_pieces: Option<usize>,
    /// A class of tables: at most this many attacking pieces (rooks,
    /// horses, cannons, pawns) in all.
    #[arg(long)]
    max_attackers: Option<usize>,
    /// With --max-attackers: at most this many on one side.
    #[arg(long, requires = "max_attackers")]
    attackers_per_side: Option<usize>,
    /// With --max-attackers: advisors and elephants: none, any (0 to 2 of
    /// each, on each side), or full (all four on both sides).
    #[arg(long, value_enum, default_value_t = DefendersArg::Any)]
    defenders: DefendersArg,
}

/// `--defenders`, as clap reads it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum DefendersArg {
    None,
    Any,
    Full,
}

impl From<DefendersArg> for Defenders {
    fn from(arg: DefendersArg) -> Defenders {
        match arg {
            DefendersArg::None => Defenders::None,
            DefendersArg::Any => Defenders::Any,
            DefendersArg::Full => Defenders::Full,
        }
    }
}

impl Selection {
    /// The tables selected (not yet with their dependencies).
    ///
    /// # Errors
    ///
    /// A name that is not a material, a bound out of range, nothing
    /// selected, or a table of more pieces than tables have.
    pub fn targets(&self) -> xqcli::Result<Vec<Material>> {
        let mut targets = self
            .materials
            .iter()
            .map(|name| name.parse::<Material>())
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(n) = self.max_pieces {
            if !(3..=MAX_PIECES).contains(&n) {
                return Err(Failure::new(format!(
                    "--max-pieces {n}: tables have 3 to {MAX_PIECES} pieces"
                )));
            }
        }
        match self.max_attackers {
            Some(attackers) => {
                let class = MaterialClass {
                    max_attackers: attackers,
                    max_attackers_per_side: self.attackers_per_side.unwrap_or(attackers),
                    defenders: self.defenders.into(),
                    max_pieces: self.max_pieces.unwrap_or(usize::MAX),
                };
                targets.extend(class.materials());
            }
            None => targets.extend(self.max_pieces.map(Material::all_up_to).unwrap_or_default()),
        }
        if targets.is_empty() {
            return Err(Failure::new(
                "nothing selected: name materials (like KRKAABB), or give --max-pieces or --max-attackers",
            ));
        }
        let big: Vec<String> = targets
            .iter()
            .filter(|m| m.piece_count() > MAX_PIECES)
            .map(|m| m.to_string())
            .collect();
        if let Some(first) = big.first() {
            return Err(Failure::new(format!(
                "{first} and {} more: tables have at most {MAX_PIECES} pieces (--max-pieces {MAX_PIECES} leaves them out)",
                big.len() - 1,
            )));
        }
        Ok(targets)
    }
}
